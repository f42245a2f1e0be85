import { join } from 'node:path';
import type { Middleware } from 'koa';
import type { DbConfig } from './db';
import { createGateway, type Gateway } from './gateway';
import { startListeners, type Listeners } from './http/listeners';
import type { RunningServer } from './http/start-server';
import { openSecretBox } from './secret-box';
import { createTlsStore } from './tls/tls-store';
import { createLogger, type Logger } from './logger';
import { usersRepo } from './repositories/users.repo';
import { VERSION } from './version';

export interface StartOptions {
  /** Data folder: the SQLite database lives here (and local files with PostgreSQL). */
  dataDir: string;
  /** PostgreSQL URL; SQLite in `dataDir` when absent. */
  databaseUrl?: string;
  /** Overrides of the stored `port`/`host` settings for this run (command-line flags). */
  port?: number;
  host?: string;
  /** `--https-port`; absent with `port: 0`, HTTPS takes a free port too (SPEC §12). */
  httpsPort?: number;
  /** `--mqtt-port` / `--mqtts-port`; absent with `port: 0`, both take free ports too (SPEC §15). */
  mqttPort?: number;
  mqttsPort?: number;
  adminPassword?: string;
  /** GATEWAY_SECRET_KEY: the key that seals destination credentials; else the data folder's `secret.key`. */
  secretKey?: string;
  adminAssets?: Middleware;
  logger?: Logger;
}

export interface StartedGateway {
  gateway: Gateway;
  /**
   * The URLs to announce and show (`/status` listenUrls): HTTP then HTTPS, and with tlsMode `on`
   * HTTPS alone, since the HTTP port there only redirects.
   */
  urls: string[];
  /** The plain-HTTP listener (in tlsMode `on` it only redirects to HTTPS). */
  server: RunningServer;
  /** The HTTPS listener, or null with tlsMode `off`. */
  https: RunningServer | null;
  /** Graceful stop: no new connections, in-flight requests finish, then the database closes. */
  stop(): Promise<void>;
}

export function databaseConfig(dataDir: string, databaseUrl?: string): DbConfig {
  return databaseUrl
    ? { kind: 'postgres', url: databaseUrl }
    : { kind: 'sqlite', filename: join(dataDir, 'gateway.db') };
}

/** The one start function behind `gateway serve` and the desktop shell. */
export async function startGateway(options: StartOptions): Promise<StartedGateway> {
  const logger = options.logger ?? createLogger();
  const tls = createTlsStore(options.dataDir);
  const gateway = await createGateway({
    tls,
    secrets: openSecretBox({ dataDir: options.dataDir, fromEnv: options.secretKey }),
    database: databaseConfig(options.dataDir, options.databaseUrl),
    adminPassword: options.adminPassword,
    adminAssets: options.adminAssets,
    logger,
  });
  const settings = gateway.deps.settings.current();
  let listeners: Listeners;
  try {
    listeners = await startListeners(gateway.app, {
      port: options.port ?? settings.port,
      host: options.host ?? settings.host,
      httpsPort: options.httpsPort ?? (options.port === 0 ? 0 : settings.httpsPort),
      tlsMode: settings.tlsMode,
      tls,
      onHttpsPort: (port) => (gateway.runtime.httpsRedirectPort = port),
    });
  } catch (error) {
    // A first start that cannot listen never printed the generated admin password: undo the
    // account so the next start creates it again and shows the password then.
    if (gateway.firstAdmin?.generatedPassword) {
      const admin = await usersRepo.findByUsername(gateway.db.knex, gateway.firstAdmin.username);
      if (admin) await usersRepo.delete(gateway.db.knex, admin.id);
    }
    await gateway.close();
    throw error;
  }
  const server = listeners.http;
  gateway.runtime.listenUrls = listeners.urls;
  gateway.runtime.listening = [listeners.http, ...(listeners.https ? [listeners.https] : [])].map((listener) => ({
    address: listener.address,
    port: listener.port,
  }));
  try {
    await gateway.mqtt.listen({
      host: options.host ?? settings.host,
      port: options.mqttPort ?? (options.port === 0 ? 0 : undefined),
      mqttsPort: options.mqttsPort ?? (options.port === 0 ? 0 : undefined),
    });
  } catch (error) {
    await listeners.stop();
    await gateway.close();
    throw error;
  }
  // Facts only: a generated admin password is the caller's to show, never a log line's.
  logger.info('gateway started', {
    version: VERSION,
    database: gateway.db.kind,
    host: server.host,
    port: server.port,
    tlsMode: settings.tlsMode,
    httpsPort: listeners.https?.port ?? null,
    firstStart: gateway.firstAdmin !== null,
  });
  let stopping: Promise<void> | null = null;
  return {
    gateway,
    urls: listeners.urls,
    server,
    https: listeners.https,
    stop: () =>
      (stopping ??= (async () => {
        await listeners.stop();
        await gateway.close();
        logger.info('gateway stopped');
      })()),
  };
}
