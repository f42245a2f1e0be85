/**
 * The MQTT case's load generator, run as a child process by `mqttLoad` (mqtt-load.ts), pinned off
 * the server's core: `options.publishers` connections (mqtt.js, MQTT 3.1.1), each keeping
 * `options.window` QoS 1 PUBLISHes of the HTTP cases' Zebra body in flight for `options.seconds`.
 * Counts PUBACKs (each one the gateway's promise that the message is stored), waits a bounded time
 * for those still in flight, and prints one JSON result line.
 *
 * The publishers behave as SPEC §15 expects of a reader: a persistent session (`clean: false`),
 * and when the gateway closes the connection instead of acknowledging (it cannot store now, e.g.
 * its queue holds more than its load policy allows), they reconnect after mqtt.js's default
 * second and send what was not acknowledged again (DUP). Each such close is counted as an error.
 * Usage: node --import tsx bench/mqtt-publishers.ts '<PublisherOptions as JSON>'
 */
import mqtt, { Store, type IStore, type MqttClient, type Packet } from 'mqtt';
import { zebraBody } from './load';
import { MQTT_RESULT_MARKER, type MqttResult, type PublisherOptions } from './mqtt-load';

/** After the measured seconds, how long messages still in flight may take to be acknowledged (default). */
const SETTLE_SECONDS = 15;
const CONNECT_TIMEOUT_MS = 10_000;
/** mqtt.js's default: a reader's own pause before it reconnects. */
const RECONNECT_MS = 1_000;

/**
 * mqtt.js's in-memory store of unacknowledged messages, except that what it sends again after a
 * reconnect carries DUP, as MQTT 3.1.1 requires of a re-delivery (mqtt.js resends the stored
 * packet as it was: MQTT.js issue #692). mqtt.js writes the message itself the first time and
 * stores a copy, so only re-deliveries are marked. The gateway acknowledges a DUP re-send of a
 * message it has stored without storing it again (SPEC §15); without DUP it stores it twice.
 */
class RedeliveryStore extends Store {
  override put(packet: Packet, cb: Parameters<IStore['put']>[1]): this {
    if (packet.cmd === 'publish') packet.dup = true;
    return super.put(packet, cb);
  }
}

/** One connection and its window of unacknowledged messages. */
class Publisher {
  inFlight = 0;
  open = true;

  constructor(
    readonly client: MqttClient,
    private readonly load: Load,
  ) {
    client.on('close', () => {
      if (this.open && this.load.running) this.load.closed += 1;
      this.open = false;
    });
    // Back again: mqtt.js has resent the unacknowledged messages; top the window up.
    client.on('connect', () => {
      this.open = true;
      this.pump();
    });
    // Errors also close the connection (counted there); without a listener they would be thrown.
    client.on('error', () => undefined);
  }

  /** Tops the window up; each acknowledgement (or failure) sends the next message while the load runs. */
  pump(): void {
    while (this.open && this.load.running && this.inFlight < this.load.options.window) {
      this.inFlight += 1;
      this.load.sent += 1;
      const sentAt = performance.now();
      this.client.publish(this.load.options.topic, zebraBody(this.load.options.tagPool), { qos: 1 }, (error) => {
        this.inFlight -= 1;
        if (error) this.load.failed += 1;
        else this.load.acknowledged(performance.now() - sentAt);
        this.pump();
      });
    }
  }
}

/** The counters of one run, shared by its publishers. */
class Load {
  running = false;
  sent = 0;
  acked = 0;
  ackedInWindow = 0;
  failed = 0;
  closed = 0;
  readonly latencies: number[] = [];

  constructor(readonly options: PublisherOptions) {}

  acknowledged(ms: number): void {
    this.acked += 1;
    if (this.running) this.ackedInWindow += 1;
    this.latencies.push(ms);
  }
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(options: PublisherOptions): Promise<MqttResult> {
  const load = new Load(options);
  const clients = await Promise.all(
    Array.from({ length: options.publishers }, (_, i) =>
      mqtt.connectAsync(options.url, {
        clientId: `bench-${process.pid}-${i}`,
        protocolVersion: 4,
        clean: false,
        reconnectPeriod: RECONNECT_MS,
        outgoingStore: new RedeliveryStore(),
        connectTimeout: CONNECT_TIMEOUT_MS,
      }),
    ),
  );
  const publishers = clients.map((client) => new Publisher(client, load));
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  load.running = true;
  for (const publisher of publishers) publisher.pump();
  await sleep(options.seconds * 1000);
  load.running = false;
  const windowMs = performance.now() - startedAt;
  const windowCpu = process.cpuUsage(cpuBefore);
  // Messages in flight at the end were sent and may be stored: wait for their PUBACKs, so the
  // durability check can hold the count of stored events to the acknowledged ones.
  const settleBy = performance.now() + (options.settleSeconds ?? SETTLE_SECONDS) * 1000;
  while (publishers.some((p) => p.inFlight > 0) && performance.now() < settleBy) await sleep(20);
  await Promise.all(clients.map((client) => client.endAsync(true)));
  const sorted = load.latencies.sort((a, b) => a - b);
  const life = process.cpuUsage();
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    connected: clients.length,
    sent: load.sent,
    ackedInWindow: load.ackedInWindow,
    acked: load.acked,
    failed: load.failed,
    closed: load.closed,
    windowMs: Math.round(windowMs),
    latencyMs: {
      p50: round(percentile(sorted, 50)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted.at(-1) ?? 0),
    },
    windowCpuMs: Math.round((windowCpu.user + windowCpu.system) / 1000),
    lifeCpuMs: Math.round((life.user + life.system) / 1000),
  };
}

const argument = process.argv[2];
if (!argument) throw new Error('usage: mqtt-publishers.ts <PublisherOptions as JSON>');
const result = await run(JSON.parse(argument) as PublisherOptions);
process.stdout.write(`${MQTT_RESULT_MARKER}${JSON.stringify(result)}\n`);
process.exit(0);
