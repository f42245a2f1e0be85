import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { Aedes, type Client } from 'aedes';
import type { Settings } from '../contract/dto';
import type { Logger } from '../logger';
import { secureContextOptions } from '../tls/secure-options';
import type { TlsStore } from '../tls/tls-store';
import { ConnectRefused, PublishRefused, type MqttPublications } from './publications';

/** Where the broker listens; ports from flags win over the stored settings (SPEC §15). */
export interface MqttListenOptions {
  host: string;
  /** `--mqtt-port`; absent: the `mqttPort` setting. */
  port?: number;
  /** `--mqtts-port`; absent: the `mqttsPort` setting. */
  mqttsPort?: number;
}

/** A client that sends no CONNECT within this long is dropped (SPEC §15). */
const CONNECT_TIMEOUT_MS = 10_000;

interface Running {
  broker: Aedes;
  servers: { server: Server; url: string }[];
  unsubscribeTls: (() => void) | null;
}

/**
 * The embedded MQTT 3.1.1 broker (SPEC §15), on `aedes`: plain MQTT when `tlsMode` is `off` or
 * `both`, MQTT over TLS (the §12 certificate) when it is `on` or `both`. It runs while `mqttMode`
 * is `on`, started and stopped as the setting changes, without a restart. Its hooks hand CONNECT
 * and PUBLISH to `MqttPublications`; PUBACK goes out only once `authorizePublish` has resolved,
 * that is once the message is committed (aedes sends PUBACK before its `published` hook, so that
 * hook is never relied on). SUBSCRIBE is refused: the broker is for ingestion only.
 */
export class MqttBroker {
  private running: Running | null = null;
  private listenOptions: MqttListenOptions | null = null;
  /** Start and stop in turn, never overlapping (settings may change while one runs). */
  private transition: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      publications: MqttPublications;
      settings: () => Settings;
      tls: TlsStore | null;
      logger: Logger;
    },
  ) {}

  /** Listens (when `mqttMode` is on) and keeps following the setting from now on. */
  listen(options: MqttListenOptions): Promise<void> {
    this.listenOptions = options;
    return this.apply();
  }

  /** The settings changed: start or stop to match `mqttMode`. */
  apply(): Promise<void> {
    this.transition = this.transition.then(async () => {
      const wanted = this.listenOptions !== null && this.deps.settings().mqttMode === 'on';
      if (wanted && !this.running) await this.start();
      else if (!wanted && this.running) await this.close();
    });
    return this.transition;
  }

  /** `mqtt://…` and `mqtts://…` while the broker runs (`/status` listenUrls). */
  urls(): string[] {
    return this.running?.servers.map((entry) => entry.url) ?? [];
  }

  /** Connected clients now. */
  clients(): number {
    return this.running?.broker.connectedClients ?? 0;
  }

  /** Stops for good (gateway shutdown): no new connections, every client closed. */
  async stop(): Promise<void> {
    this.listenOptions = null;
    await this.apply();
  }

  private async start(): Promise<void> {
    const options = this.listenOptions;
    if (!options) return;
    const settings = this.deps.settings();
    const { publications, logger } = this.deps;
    const broker = await Aedes.createBroker({
      connectTimeout: CONNECT_TIMEOUT_MS,
      // Readers' client ids (a MAC, a serial and a prefix) can be longer than 3.1.1's minimum of 23.
      maxClientsIdLength: 256,
      authenticate: (client, username, password, done) => {
        publications.connect(client, username, password).then(
          () => done(null, true),
          (error: unknown) => {
            const refusal = error instanceof ConnectRefused ? error : new ConnectRefused(5);
            if (!(error instanceof ConnectRefused)) logger.warn('mqtt connect failed', { error });
            // aedes reads `returnCode` off the error for the CONNACK.
            done(refusal, false);
          },
        );
      },
      authorizePublish: (client, packet, done) => {
        publications.publish(client, packet).then(
          () => done(null),
          (error: unknown) => {
            if (!(error instanceof PublishRefused)) logger.warn('mqtt publish failed', { error });
            done(error instanceof Error ? error : new Error(String(error)));
          },
        );
      },
      authorizeSubscribe: (_client, _subscription, done) => done(null, null),
    });
    broker.on('clientDisconnect', (client: Client) => publications.forget(client));
    const servers: Running['servers'] = [];
    const plain = settings.tlsMode !== 'on';
    const secure = settings.tlsMode !== 'off' ? this.deps.tls?.current() : null;
    try {
      if (plain) {
        const server = createNetServer((socket) => broker.handle(socket));
        servers.push({ server, url: await listenOn(server, 'mqtt', options.host, options.port ?? settings.mqttPort) });
      }
      if (secure) {
        const server = createTlsServer(secureContextOptions(secure), (socket) => broker.handle(socket));
        servers.push({
          server,
          url: await listenOn(server, 'mqtts', options.host, options.mqttsPort ?? settings.mqttsPort),
        });
      }
    } catch (error) {
      await Promise.all(servers.map(({ server }) => closeServer(server)));
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      throw error;
    }
    const tlsServer = secure ? servers[servers.length - 1]?.server : undefined;
    const unsubscribeTls =
      tlsServer && this.deps.tls
        ? this.deps.tls.onChange((next) => (tlsServer as TlsServer).setSecureContext(secureContextOptions(next)))
        : null;
    this.running = { broker, servers, unsubscribeTls };
    for (const { url } of servers) logger.info('mqtt listening', { url });
  }

  private async close(): Promise<void> {
    const running = this.running;
    if (!running) return;
    this.running = null;
    running.unsubscribeTls?.();
    // Listening stops first, then every client is closed (an unacknowledged message is resent
    // by its client after reconnecting: nothing is lost).
    const closing = running.servers.map(({ server }) => closeServer(server));
    await new Promise<void>((resolve) => running.broker.close(() => resolve()));
    await Promise.all(closing);
    this.deps.logger.info('mqtt stopped', {});
  }
}

async function listenOn(server: Server, scheme: 'mqtt' | 'mqtts', host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.address.includes(':') ? `[${address.address}]` : address.address;
  return `${scheme}://${shown}:${address.port}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
