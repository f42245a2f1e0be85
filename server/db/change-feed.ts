import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from '../logger';
import { ALL_RESOURCES, type ConfigChanges, type ConfigResource } from './config-changes';

const CHANNEL = 'gateway_config';
const POLL_MS = 1000;

export interface ChangeFeed {
  stop(): Promise<void>;
}

/**
 * Keeps several instances on one PostgreSQL database in step. A local configuration change bumps
 * `config_version` and is announced with NOTIFY; every instance LISTENs and applies the others'
 * changes at once. As a safety net for a missed notification (connection dropped, listener
 * restarting), each instance also polls the version every second and reloads everything when it
 * moved without a notification it saw.
 */
export function startPgChangeFeed(deps: {
  url: string;
  knex: Knex;
  changes: ConfigChanges;
  instanceId: string;
  logger: Logger;
  /** Called before remote changes are delivered (e.g. reload settings from the database). */
  beforeReceive: (resources: readonly ConfigResource[]) => Promise<void>;
  /** Extra work on each poll tick (e.g. resync the shared queue depth). */
  onTick?: () => Promise<void>;
}): ChangeFeed {
  let stopped = false;
  let client: pg.Client | null = null;
  let lastVersion: number | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;

  const deliver = async (resources: readonly ConfigResource[]) => {
    await deps.beforeReceive(resources);
    deps.changes.receive(resources);
  };

  const readVersion = async (): Promise<number> => {
    const row = await deps.knex('config_version').where({ id: 1 }).first<{ version: unknown } | undefined>('version');
    return Number(row?.version ?? 0);
  };

  // Forward local changes: bump the version, then notify (payload names the origin).
  const unsubscribe = deps.changes.subscribe((resources, origin) => {
    if (origin.remote) return;
    const payload = JSON.stringify({ origin: deps.instanceId, resources: [...resources] });
    void (async () => {
      await deps.knex('config_version').where({ id: 1 }).increment('version', 1);
      lastVersion = await readVersion();
      await deps.knex.raw('select pg_notify(?, ?)', [CHANNEL, payload]);
    })().catch((error: unknown) => deps.logger.warn('change broadcast failed', { error: String(error) }));
  });

  const connect = async () => {
    const next = new pg.Client({ connectionString: deps.url });
    next.on('notification', (message) => {
      try {
        const { origin, resources } = JSON.parse(message.payload ?? '{}') as {
          origin?: string;
          resources?: ConfigResource[];
        };
        if (origin === deps.instanceId || !Array.isArray(resources)) return;
        void deliver(resources).catch((error: unknown) =>
          deps.logger.warn('applying a remote change failed', { error: String(error) }),
        );
      } catch {
        // a foreign or malformed notification on our channel is ignored
      }
    });
    next.on('error', () => scheduleReconnect());
    next.on('end', () => scheduleReconnect());
    await next.connect();
    await next.query(`LISTEN ${CHANNEL}`);
    client = next;
  };

  const scheduleReconnect = () => {
    if (stopped || reconnectTimer) return;
    client = null;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      connect().catch(() => scheduleReconnect());
    }, POLL_MS);
    reconnectTimer.unref();
  };

  const poll = setInterval(() => {
    void (async () => {
      const version = await readVersion();
      if (lastVersion !== null && version !== lastVersion) await deliver(ALL_RESOURCES);
      lastVersion = version;
      await deps.onTick?.();
    })().catch(() => undefined); // the database may be down; the next tick tries again
  }, POLL_MS);
  poll.unref();

  connect().catch(() => scheduleReconnect());
  void readVersion()
    .then((version) => (lastVersion = version))
    .catch(() => undefined);

  return {
    async stop() {
      stopped = true;
      clearInterval(poll);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      unsubscribe();
      await client?.end().catch(() => undefined);
    },
  };
}
