import { join } from 'node:path';
import type { Middleware } from 'koa';
import type { DbConfig } from './db';
import { createGateway, type Gateway } from './gateway';
import { startServer, type RunningServer } from './http/start-server';
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
  adminPassword?: string;
  adminAssets?: Middleware;
  logger?: Logger;
}

export interface StartedGateway {
  gateway: Gateway;
  server: RunningServer;
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
  const gateway = await createGateway({
    database: databaseConfig(options.dataDir, options.databaseUrl),
    adminPassword: options.adminPassword,
    adminAssets: options.adminAssets,
    logger,
  });
  const settings = gateway.deps.settings.current();
  let server: RunningServer;
  try {
    server = await startServer(gateway.app, {
      port: options.port ?? settings.port,
      host: options.host ?? settings.host,
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
  gateway.runtime.listenUrls = server.urls;
  // Facts only: a generated admin password is the caller's to show, never a log line's.
  logger.info('gateway started', {
    version: VERSION,
    database: gateway.db.kind,
    host: server.host,
    port: server.port,
    firstStart: gateway.firstAdmin !== null,
  });
  let stopping: Promise<void> | null = null;
  return {
    gateway,
    server,
    stop: () =>
      (stopping ??= (async () => {
        await server.stop();
        await gateway.close();
        logger.info('gateway stopped');
      })()),
  };
}
