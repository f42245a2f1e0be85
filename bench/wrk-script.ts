import { SGTIN_PREFIX } from './epc-pool';

/** What one wrk run sends; turned into a Lua script by `wrkScript`. */
export interface WrkRequestSpec {
  method: 'POST' | 'GET';
  /** Path and query, e.g. `/GWENDPOINTAPI/bench/asyncOpen`. */
  path: string;
  headers?: Record<string, string>;
  /** POST only: serials cycled for the EPCs in the Zebra body (1 = the same EPC every time). */
  tagPool?: number;
  /** POST only: tag reads per body (antennas 1–4 in turn); 2 unless given. */
  readsPerBody?: number;
  /** wrk threads (`-t`); each one sends its own share of the serials. */
  threads: number;
  /**
   * Where this run starts in the pool. Runs continue where the last one stopped, so a run of a
   * distinct-tag case sends tags the gateway has not seen yet, not the previous run's again.
   */
  firstSerial?: number;
}

/** The line `done()` prints; `parseWrkOutput` reads it back. */
export const RESULT_MARKER = 'BENCH-RESULT ';

const luaString = (value: string) => JSON.stringify(value); // a JSON string literal is a valid Lua literal for ASCII

/**
 * A wrk Lua script that:
 * - builds each POST body afresh: a Zebra FX (IoT Connector) batch of `readsPerBody` SIMPLE tag
 *   reads (two: ~390 bytes, as the reader posts it) with the current time and the next EPCs of
 *   the pool;
 * - sets the headers (authorization for the auth cases);
 * - counts requests sent and answers by status in each thread (`request()`, `response()`), since
 *   wrk's own summary only counts status ≥ 400 as errors;
 * - prints one JSON line in `done()`: totals, latency percentiles and wrk's own CPU time from
 *   /proc/self/stat (all its threads), so the bench can tell a saturated load generator.
 */
export function wrkScript(spec: WrkRequestSpec): string {
  const headers = { ...(spec.method === 'POST' ? { 'content-type': 'application/json' } : {}), ...spec.headers };
  const headerLua = Object.entries(headers)
    .map(([name, value]) => `[${luaString(name)}] = ${luaString(value)}`)
    .join(', ');
  const pool = Math.max(1, Math.floor(spec.tagPool ?? 1));
  const threads = Math.max(1, Math.floor(spec.threads));
  const readsPerBody = Math.max(1, Math.floor(spec.readsPerBody ?? 2));
  return `-- Written by bench/wrk-script.ts for one wrk run; regenerated every run.
local method = ${luaString(spec.method)}
local path = ${luaString(spec.path)}
local headers = { ${headerLua} }
local with_body = ${spec.method === 'POST' ? 'true' : 'false'}
local pool = ${pool}
local threads_total = ${threads}
local first_serial = ${Math.max(0, Math.floor(spec.firstSerial ?? 0))}
local reads_per_body = ${readsPerBody}
local prefix = ${luaString(SGTIN_PREFIX)}

-- Main state: the threads, to collect their counters in done().
local threads = {}
function setup(thread)
  thread:set("thread_index", #threads)
  table.insert(threads, thread)
end

-- Thread state.
sent = 0
statuses = {}
local seq = 0
local stamp_second, stamp = -1, ""

local function timestamp()
  local now = os.time()
  if now ~= stamp_second then
    stamp_second = now
    stamp = os.date("!%Y-%m-%dT%H:%M:%S.000+0000", now)
  end
  return stamp
end

-- Serials of thread i are i, i + threads_total, ... so the threads share the pool without overlap.
function epc_serial(n)
  return (first_serial + n * threads_total + (thread_index or 0)) % pool
end

local function tag_read(antenna, at)
  seq = seq + 1
  return string.format(
    '{"type":"SIMPLE","timestamp":"%s","data":{"MAC":"84:24:8D:12:34:56","antenna":%d,"eventNum":%d,"format":"epc","idHex":"%s%08X","peakRssi":%d,"reads":%d}}',
    at, antenna, seq, prefix, epc_serial(seq), -50 - seq % 20, 1 + seq % 4)
end

function zebra_body()
  local at = timestamp()
  local reads = {}
  for i = 1, reads_per_body do reads[i] = tag_read((i - 1) % 4 + 1, at) end
  return "[" .. table.concat(reads, ",") .. "]"
end

function request()
  sent = sent + 1
  local body = nil
  if with_body then body = zebra_body() end
  -- wrk.format adds Host and Content-Length to the table it is given: give it a copy.
  local h = {}
  for k, v in pairs(headers) do h[k] = v end
  return wrk.format(method, path, h, body)
end

function response(status, response_headers, body)
  local key = tostring(status)
  statuses[key] = (statuses[key] or 0) + 1
end

local function cpu_ms()
  local file = io.open("/proc/self/stat", "r")
  if not file then return -1 end
  local text = file:read("*a")
  file:close()
  local rest = text:match("%) (.*)")
  local fields = {}
  for field in rest:gmatch("%S+") do table.insert(fields, field) end
  -- utime and stime (fields 14 and 15 of stat; 12 and 13 after the command name), in 10 ms ticks.
  return (tonumber(fields[12]) + tonumber(fields[13])) * 10
end

function done(summary, latency, requests)
  local total_sent, counts = 0, {}
  for _, thread in ipairs(threads) do
    total_sent = total_sent + (thread:get("sent") or 0)
    for code, n in pairs(thread:get("statuses") or {}) do counts[code] = (counts[code] or 0) + n end
  end
  local parts = {}
  for code, n in pairs(counts) do table.insert(parts, string.format('"%s":%d', code, n)) end
  local e = summary.errors
  io.write(string.format(
    '${RESULT_MARKER}{"requests":%d,"durationUs":%d,"sent":%d,"statuses":{%s},' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d},' ..
    '"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f},"cpuMs":%d}\\n',
    summary.requests, summary.duration, total_sent, table.concat(parts, ","),
    e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
    cpu_ms()))
end
`;
}
