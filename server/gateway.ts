import type { TlsStore } from './tls/tls-store';
import { tlsHandlers } from './services/tls.service';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import { CredentialVerifier } from './auth/credentials';
import { AuthDirectory } from './auth/directory';
import { Lockout } from './auth/lockout';
import type { GatewayHandlers } from './contract/operations';
import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { createDb, type Db, type DbConfig } from './db';
import { startPgChangeFeed, type ChangeFeed } from './db/change-feed';
import { createApp } from './http/app';
import { HostAllowList, namesOfUrls } from './http/middleware/host-allow-list';
import { createLogger, type Logger } from './logger';
import { CountingPipeline } from './metrics/counting-pipeline';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { IngestCounters } from './metrics/ingest-counters';
import { eventsRepo } from './repositories/events.repo';
import { dataPlane } from './ingest/data-plane';
import { GroupCommit, sumStats } from './ingest/group-commit';
import { Idempotency } from './ingest/idempotency';
import { LiveRoutes } from './ingest/route-table';
import { createWriter } from './db/writer';
import { IngestLoad } from './ingest/ingest-load';
import { QueueDepth } from './ingest/queue-depth';
import { Worker } from './ingest/worker';
import { Housekeeping } from './ingest/housekeeping';
import { createAccessTokensService } from './services/access-tokens.service';
import { createAuditService } from './services/audit.service';
import { createBackupService } from './services/backup';
import { ensureBuiltInRoles, ensureFirstAdmin } from './services/bootstrap';
import { ConfigChanges } from './db/config-changes';
import { createEndpointsService } from './services/endpoints.service';
import { createEventsService } from './services/events.service';
import { createExternalUsersService } from './services/external-users.service';
import { createRolesService } from './services/roles.service';
import type { ServiceDeps } from './services/service-deps';
import { createSessionsService } from './auth/sessions.service';
import { createStatusService } from './services/status.service';
import { createSettingsService } from './services/settings.service';
import { createUsersService } from './services/users.service';
import { healthAnswer } from './ingest/write-health';
import { DeliveryEngine } from './delivery/delivery-engine';
import { DeliveryLedger } from './delivery/ledger';
import { Outbox } from './delivery/outbox';
import { createDestinationsService } from './services/destinations.service';
import { VERSION } from './version';

export interface GatewayOptions {
  database: DbConfig;
  logger?: Logger;
  /** First-start admin password (GATEWAY_ADMIN_PASSWORD); generated when absent. */
  adminPassword?: string;
  /**
   * Whether this process creates the first admin when no user holds the admin role (default
   * true): `serve`, the desktop and tests, which show or know its password. One-shot commands
   * (`user add`, `backup`) pass false: a password generated there would be seen by nobody, and
   * the next `serve` creates and prints it instead.
   */
  createFirstAdmin?: boolean;
  adminAssets?: Middleware;
  now?: () => number;
  /** Run the queue worker in this process (default true); false makes an ingest-only instance. */
  processQueue?: boolean;
  /** The HTTPS certificate store (data folder); absent, the TLS operations answer 404. */
  tls?: TlsStore;
}

/** What the status operation needs from the running server (set once it listens). */
export interface RuntimeInfo {
  listenUrls: string[];
  startedAt: number;
  /** tlsMode `on`: the HTTPS port plain HTTP is redirected to (set once HTTPS listens). */
  httpsRedirectPort: number | null;
}

export interface Gateway {
  app: Koa;
  db: Db;
  handlers: GatewayHandlers;
  changes: ConfigChanges;
  deps: ServiceDeps;
  runtime: RuntimeInfo;
  commit: GroupCommit;
  housekeeping: Housekeeping;
  /** Set on the first start only: the generated admin password, to print once. */
  firstAdmin: { username: string; generatedPassword: string | null } | null;
  close(): Promise<void>;
}

/**
 * The composition root shared by `gateway serve`, the desktop shell and the tests: opens the
 * database, builds services over it, and assembles the contract handlers and the Koa app.
 */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const logger = options.logger ?? createLogger();
  const now = options.now ?? Date.now;
  const db = await createDb(options.database, { logger });
  const changes = new ConfigChanges();
  const audit = createAuditService({ db, now });
  const settings = createSettingsService({ db, changes, audit });
  await settings.reload();
  await ensureBuiltInRoles(db);
  const firstAdmin =
    options.createFirstAdmin === false
      ? null
      : await ensureFirstAdmin(db, {
          password: options.adminPassword,
          bcryptCost: settings.current().bcryptCost,
          now: now(),
          logger,
        });

  const deps: ServiceDeps = { db, changes, audit, settings, now };
  const directory = new AuthDirectory(db, changes);
  const verifier = new CredentialVerifier({ db, directory, settings, now }, changes);
  const lockout = new Lockout(() => settings.current().authFailureLimit, now, logger);
  const sessions = createSessionsService({ db, settings, verifier, changes, now });
  const runtime: RuntimeInfo = { listenUrls: [], startedAt: now(), httpsRedirectPort: null };

  // Data plane: live routes, group commit, the queue and its worker.
  const routes = new LiveRoutes(db, changes);
  const depth = new QueueDepth();
  const load = new IngestLoad(depth, () => settings.current().maxQueueDepth);
  const writer = createWriter(db);
  const commit = new GroupCommit(writer, load.flush);
  // SQLite has one writer, so every write shares one group commit. PostgreSQL runs transactions
  // side by side: acknowledgements get a group commit of their own there, so a 202 never waits
  // behind the worker's (or a sync request's) processing flush.
  const acks = db.kind === 'postgres' ? new GroupCommit(writer, load.flush) : commit;
  const lanes = acks === commit ? [commit] : [commit, acks];
  const commitStats = () => sumStats(...lanes.map((lane) => lane.stats));
  const ingestCounters = new IngestCounters();
  const instanceId = randomUUID();
  // Store and forward: processing writes delivery items into the outbox, the engine sends them.
  const ledger = new DeliveryLedger(now);
  const maxOutboxItems = () => settings.current().maxOutboxItems;
  const outbox = new Outbox(db, changes, ledger, maxOutboxItems, now);
  const delivery = new DeliveryEngine({
    db,
    store: (work) => commit.store(work),
    changes,
    ledger,
    logger,
    now,
    instanceId,
    maxOutboxItems,
  });
  const pipeline = new CountingPipeline(ingestCounters, { work: commit, acks }, load, () => settings.current(), now, {
    outbox,
    committed: (ids) => delivery.notify(ids),
  });
  const idempotency = new Idempotency(db, now);
  const worker = new Worker({
    owner: instanceId,
    db,
    pipeline,
    depth,
    load,
    logger,
    now,
    lenientFor: (routeId) => {
      const table = routes.get();
      if (table instanceof Promise) return false;
      for (const live of table.values()) if (live.route.id === routeId) return live.route.epcisLenient;
      return false;
    },
  });
  await worker.start(options.processQueue !== false);
  await delivery.start(options.processQueue !== false);
  // Several instances on one PostgreSQL database: share configuration changes and queue depth.
  const feed: ChangeFeed | null =
    options.database.kind === 'postgres'
      ? startPgChangeFeed({
          url: options.database.url,
          knex: db.knex,
          changes,
          instanceId,
          logger,
          beforeReceive: async (resources) => {
            if (resources.includes('settings')) await settings.reload();
          },
          onTick: async () => depth.reset(await eventsRepo.countQueued(db.knex)),
        })
      : null;
  const housekeeping = new Housekeeping({ db, commit, settings, sessions, idempotency, logger, now });
  housekeeping.start();

  const handlers = {
    ...createEndpointsService(deps),
    ...createRolesService(deps),
    ...createUsersService(deps),
    ...createExternalUsersService(deps),
    ...createAccessTokensService(deps),
    ...createEventsService({ db, settings }),
    getSettings: () => settings.get(),
    updateSettings: (input, context) => settings.update(input, context),
    ...tlsHandlers(options.tls, { db, audit }),
    listAudit: (input) => audit.listAudit(input),
    ...createBackupService(deps, options.tls),
    ...createStatusService({
      db,
      now,
      runtime,
      queueDepth: () => depth.current,
      destinations: () => delivery.summaries(),
    }),
    ...createDestinationsService({ ...deps, delivery }),
  } satisfies GatewayHandlers;
  const metrics = new GatewayMetrics({
    events: ingestCounters,
    status: () => handlers.getStatus(),
    commitStats,
    destinations: () => delivery.metrics(),
  });

  const app = createApp({
    logger,
    handlers,
    verifier,
    lockout,
    sessions,
    metrics,
    adminAssets: options.adminAssets,
    allowedHosts: new HostAllowList(() => [...namesOfUrls(runtime.listenUrls), settings.current().host]),
    network: {
      settings: () => settings.current(),
      httpsRedirectPort: () => runtime.httpsRedirectPort,
      certificatePem: () => options.tls?.current()?.certificatePem ?? null,
    },
    dataPlane: dataPlane({
      db,
      routes,
      verifier,
      lockout,
      settings,
      pipeline,
      idempotency,
      load,
      worker,
      logger,
      now,
    }),
    health: () =>
      healthAnswer({
        lanes,
        queue: { depth: () => depth.current, limit: () => load.queueBound() },
        dataDir: db.kind === 'sqlite' && options.database.kind === 'sqlite' ? dirname(options.database.filename) : null,
        probe: () => db.knex.raw('select 1'),
        fullOutboxes: () => delivery.fullOutboxes(),
        version: VERSION,
        databaseKind: db.kind,
        commitStats,
      }),
  });

  return {
    app,
    db,
    handlers,
    changes,
    deps,
    runtime,
    firstAdmin,
    commit,
    housekeeping,
    async close() {
      // The worker finishes its batch; what is still queued stays durable for the next start.
      await housekeeping.stop();
      await feed?.stop();
      await worker.stop();
      await delivery.stop();
      await Promise.all(lanes.map((lane) => lane.drain()));
      await Promise.all([directory.settle(), routes.settle(), outbox.settle()]);
      await db.close();
    },
  };
}
