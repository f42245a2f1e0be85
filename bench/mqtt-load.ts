import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { RunFigures } from './load';
import { pinned } from './wrk';

/**
 * The MQTT case's load generator, as seen from the bench: `mqttLoad` runs the publishers
 * (mqtt-publishers.ts) in a child process on the load generator's core, as wrk runs for the HTTP
 * cases, and turns what the child prints into the bench's run figures.
 */

/** What one run of the publishers does. */
export interface PublisherOptions {
  /** `mqtt://host:port` of the gateway's broker. */
  url: string;
  topic: string;
  /** Measured seconds; connecting before and waiting for the last acknowledgements after are not counted. */
  seconds: number;
  /** Connections, each a reader publishing on its own. */
  publishers: number;
  /** QoS 1 PUBLISHes each publisher keeps unacknowledged at once (mqtt.js assigns the packet ids). */
  window: number;
  /** Serials cycled for the EPCs in the Zebra body (see epc-pool.ts). */
  tagPool: number;
  /** How long messages in flight at the end may take to be acknowledged; 15 unless given. */
  settleSeconds?: number;
}

/** The line the child prints last; `parseMqttOutput` reads it back. */
export const MQTT_RESULT_MARKER = 'BENCH-MQTT-RESULT ';

/** What the child counted. */
export interface MqttResult {
  /** Publishers that got a CONNACK. */
  connected: number;
  /** PUBLISHes written. */
  sent: number;
  /** PUBACKs received within the measured seconds: the rate. */
  ackedInWindow: number;
  /** PUBACKs received in all, including those for messages in flight when the seconds ran out. */
  acked: number;
  /** PUBLISHes whose callback reported an error (their connection closed under them). */
  failed: number;
  /** Connections the broker closed while the load ran (a refused or unstorable message closes it). */
  closed: number;
  /** The measured window, ms. */
  windowMs: number;
  /** PUBLISH written → PUBACK received, ms, over every acknowledged message. */
  latencyMs: { p50: number; p99: number; max: number };
  /** The child's CPU during the measured window and over its whole life, ms. */
  windowCpuMs: number;
  lifeCpuMs: number;
}

/** The result line of the child's stdout; throws with the output when it is missing. */
export function parseMqttOutput(stdout: string): MqttResult {
  const line = stdout.split('\n').find((l) => l.startsWith(MQTT_RESULT_MARKER));
  if (!line) throw new Error(`the MQTT publishers printed no result line:\n${stdout}`);
  return JSON.parse(line.slice(MQTT_RESULT_MARKER.length)) as MqttResult;
}

/** The child's counts in the bench's terms: PUBACKs are the 2xx answers of the HTTP cases. */
export function mqttFigures(result: MqttResult, wallMs: number): RunFigures {
  const windowMs = Math.max(1, result.windowMs);
  return {
    generator: 'mqtt',
    generatorCpu: Math.round((100 * result.windowCpuMs) / windowMs),
    accountedGeneratorCpu: Math.round((100 * result.lifeCpuMs) / Math.max(1, wallMs)),
    rps: result.ackedInWindow / (windowMs / 1000),
    p50: result.latencyMs.p50,
    p99: result.latencyMs.p99,
    ok2xx: result.acked,
    non2xx: 0,
    errors: result.failed + result.closed,
    // Written and never acknowledged: stored or not, the gateway may have either.
    cutOff: Math.max(0, result.sent - result.acked),
    statusCodes: { PUBACK: result.acked },
  };
}

const PUBLISHERS_SCRIPT = join(import.meta.dirname, 'mqtt-publishers.ts');

/**
 * One run of the publishers in a child process pinned to the load generator's core (TypeScript
 * through tsx, so the bench needs no build of its own).
 */
export async function mqttLoad(options: PublisherOptions): Promise<RunFigures> {
  const [command, args] = pinned('generator', process.execPath, [
    '--import',
    'tsx',
    PUBLISHERS_SCRIPT,
    JSON.stringify(options),
  ]);
  const started = performance.now();
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve, reject) => {
      const child = spawn(command, args, { cwd: join(import.meta.dirname, '..'), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-16_384)));
      // Connecting and the wait for the last acknowledgements are bounded in the child; this is the backstop.
      const killer = setTimeout(() => child.kill('SIGKILL'), (options.seconds + 90) * 1000);
      child.once('error', reject);
      child.once('close', (exitCode) => {
        clearTimeout(killer);
        resolve({ code: exitCode, stdout: out, stderr: err });
      });
    },
  );
  if (code !== 0) throw new Error(`the MQTT publishers exited with ${code}:\n${stdout}\n${stderr}`);
  return mqttFigures(parseMqttOutput(stdout), performance.now() - started);
}
