import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import type { SessionsService } from './auth/sessions.service';
import type { Db, DbConfig } from './db';
import { startPgChangeFeed, type ChangeFeed } from './db/change-feed';
import type { ConfigChanges } from './db/config-changes';
import { ReadRounds } from './db/read-rounds';
import { createWriter } from './db/writer';
import { DeliveryEngine } from './delivery/delivery-engine';
import { DeliveryLedger } from './delivery/ledger';
import { Outbox } from './delivery/outbox';
import { GroupCommit, sumStats } from './intake/commit/group-commit';
import { EpcisIndexBackfill } from './intake/epcis-backfill';
import { Housekeeping } from './intake/housekeeping';
import { Idempotency } from './intake/idempotency';
import { IngestLoad } from './intake/commit/ingest-load';
import { QueueDepth } from './intake/commit/queue-depth';
import { LiveRoutes } from './intake/route-table';
import { EventProcessing } from './intake/processing/event-processing';
import { QueuedPath } from './intake/processing/queued-path';
import { LargePayloads } from './intake/processing/large-payloads';
import { SyncPath } from './intake/processing/sync-path';
import { Worker } from './intake/processing/worker';
import { ReaderTracking } from './intake/processing/reader-tracking';
import { healthAnswer } from './intake/commit/write-health';
import { Intake } from './intake/intake';
import { BodyBudget } from './http/data-plane/body-budget';
import type { Logger } from './logger';
import type { SecretBox } from './secret-box';
import { IngestCounters } from './metrics/ingest-counters';
import { eventsRepo } from './repositories/events.repo';
import type { SettingsService } from './services/settings.service';
import { VERSION } from './version';

/**
 * `/_health` degraded by each destination whose delivery loop fails inside the gateway (a database
 * error, a secret that cannot be opened): reason `delivery_failing`. A receiver that is down is
 * not the gateway's trouble and stays out of it (the destination's status shows it).
 */
function withDeliveryFailures(
  answer: { ok: boolean; body: Record<string, unknown> },
  failing: readonly string[],
): { ok: boolean; body: Record<string, unknown> } {
  if (failing.length === 0) return answer;
  const { status: _status, reasons, ...rest } = answer.body;
  const more = failing.map((message) => ({ code: 'delivery_failing', message }));
  return {
    ok: false,
    body: {
      status: 'degraded',
      reasons: [...(Array.isArray(reasons) ? (reasons as unknown[]) : []), ...more],
      ...rest,
    },
  };
}

/**
 * The data plane's moving parts, assembled for `createGateway`: the live route table, the group
 * commit lanes on the one writer, the load policy, the sync and queued processing paths, the
 * queue worker, store and forward (outbox and delivery engine), housekeeping, and on PostgreSQL
 * the change feed that keeps several instances in step. `close` stops them in the order that loses nothing.
 */
export async function assembleDataPlane(base: {
  db: Db;
  database: DbConfig;
  changes: ConfigChanges;
  settings: SettingsService;
  sessions: SessionsService;
  logger: Logger;
  now: () => number;
  /** Run the worker and the delivery engine here (false: an ingest-only instance). */
  processQueue: boolean;
  /** Opens the destinations' stored credentials for delivery. */
  secrets: SecretBox;
}) {
  const { db, changes, settings, logger, now } = base;
  const instanceId = randomUUID();
  const routes = new LiveRoutes(db, changes);
  const depth = new QueueDepth();
  const load = new IngestLoad(depth, () => settings.current().maxQueueDepth);
  const writer = createWriter(db);
  const commit = new GroupCommit(writer, { limits: load.flush, now });
  // SQLite has one writer, so every write shares one group commit. PostgreSQL runs transactions
  // side by side: acknowledgements get a group commit of their own there, so a 202 never waits
  // behind the worker's (or a sync request's) processing flush.
  const acks = db.kind === 'postgres' ? new GroupCommit(writer, { limits: load.flush, now }) : commit;
  const lanes = acks === commit ? [commit] : [commit, acks];
  const counters = new IngestCounters();
  const commitStats = () => sumStats(...lanes.map((lane) => lane.stats));

  // Store and forward: processing writes delivery items into the outbox, the engine sends them.
  const ledger = new DeliveryLedger(now);
  const maxOutboxItems = () => settings.current().maxOutboxItems;
  const outbox = new Outbox(db, changes, ledger, maxOutboxItems, now);
  const store = <T>(work: Parameters<GroupCommit['store']>[0]) => commit.store(work) as Promise<T>;
  const delivery = new DeliveryEngine({
    db,
    store,
    changes,
    ledger,
    logger,
    now,
    instanceId,
    maxOutboxItems,
    secrets: base.secrets,
  });
  const handoff = { outbox, committed: (ids: ReadonlySet<number>) => delivery.notify(ids) };
  const readers = new ReaderTracking(now);
  const processing = new EventProcessing({
    settings: () => settings.current(),
    now,
    delivery: handoff,
    tally: counters,
    readers,
    logger,
  });
  const byRole = { work: commit, acks };
  const sync = new SyncPath(processing, byRole, load);
  // A claim leaves a large payload to be read on its own: the worker takes it from here.
  const queued = new QueuedPath(processing, byRole, load, new LargePayloads(now));

  const idempotency = new Idempotency(db, now);
  const worker = new Worker({
    owner: instanceId,
    db,
    queued,
    depth,
    load,
    logger,
    now,
    // The route as it is now, waiting while the table reloads after a change: answering `false`
    // then would validate a lenient route's event strictly and reject it for good (issue 38.10).
    lenientFor: async (routeId) => (await routes.byId(routeId))?.route.epcisLenient ?? false,
  });
  const intake = new Intake({ settings, sync, queued, idempotency, load, worker, logger, now });
  await worker.start(base.processQueue);
  await delivery.start(base.processQueue);
  // Several instances on one PostgreSQL database: share configuration changes and queue depth.
  const feed: ChangeFeed | null =
    base.database.kind === 'postgres'
      ? startPgChangeFeed({
          url: base.database.url,
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
  const housekeeping = new Housekeeping({ db, commit, settings, sessions: base.sessions, idempotency, logger, now });
  housekeeping.start();
  // EPCIS events stored before the repository's index existed (SPEC §17); a no-op pass once done.
  const epcisBackfill = new EpcisIndexBackfill({ db, commit, logger });
  if (base.processQueue) epcisBackfill.start();

  return {
    /** This process's id: lease owner, change-feed origin, and the `X-Gateway-Id` of its deliveries. */
    instanceId,
    routes,
    depth,
    load,
    commit,
    lanes,
    commitStats,
    /** `/_health`: the write path, the queue, the disk and the outboxes, read without waiting on the writer. */
    health: async () =>
      withDeliveryFailures(
        await healthAnswer({
          lanes,
          queue: { depth: () => depth.current, limit: () => load.queueBound() },
          dataDir: base.database.kind === 'sqlite' ? dirname(base.database.filename) : null,
          // The read pool (SQLite): a long flush holds the one writer connection, and the probe must not wait for it.
          probe: () => db.reads.raw('select 1'),
          fullOutboxes: () => delivery.fullOutboxes(),
          version: VERSION,
          databaseKind: db.kind,
          commitStats,
          now,
        }),
        delivery.failingLoops(),
      ),
    counters,
    /** The readers' records as the traffic keeps them (SPEC §16): `/status` asks it for the untracked. */
    readers,
    intake,
    snapshots: new ReadRounds(),
    bodies: new BodyBudget(),
    worker,
    delivery,
    housekeeping,
    epcisBackfill,
    async close(): Promise<void> {
      // The worker finishes its batch; what is still queued stays durable for the next start.
      await epcisBackfill.stop();
      await housekeeping.stop();
      await feed?.stop();
      await worker.stop();
      await delivery.stop();
      await Promise.all(lanes.map((lane) => lane.drain()));
      await Promise.all([routes.settle(), outbox.settle()]);
    },
  };
}
