import type { Context, Middleware } from 'koa';
import { principalName, type CredentialVerifier } from '../auth/credentials';
import type { Lockout } from '../auth/lockout';
import type { Db } from '../db';
import type { ReadRounds } from '../db/read-rounds';
import { isDatabaseUnavailable, isStorageError } from '../db/unavailable';
import { AppError } from '../errors';
import { SerializedPage, type EventMeta } from '../events/processor';
import { readStoredIssues } from '../events/issues';
import { PROCESSORS } from '../events/registry';
import { EVENT_ID, newEventId } from '../ids';
import type { Logger } from '../logger';
import { eventsRepo } from '../repositories/events.repo';
import type { SettingsService } from '../services/settings.service';
import { iso } from '../time';
import { parseRequestJson } from '../events/large-body';
import { receiptPath, type Answer } from './answers';
import { authorizeRoute } from './authorize';
import type { BodyBudget, BodyTicket } from './body-budget';
import type { Idempotency, IdempotencyScope } from './idempotency';
import { readIdempotencyKey } from './idempotency';
import { closeIfBodyPending, isJsonContentType } from './request-body';
import { bodyHash, readBodyText } from './request-text';
import { routeKey, type LiveRoute, type LiveRoutes } from './route-table';
import { readSnapshotQuery } from './snapshot-query';
import type { IngestLoad } from './ingest-load';
import type { QueuedPath } from './queued-path';
import type { SyncPath } from './sync-path';
import type { Worker } from './worker';

export interface DataPlaneDeps {
  db: Db;
  routes: LiveRoutes;
  verifier: CredentialVerifier;
  lockout: Lockout;
  settings: SettingsService;
  sync: SyncPath;
  queued: QueuedPath;
  /** GET snapshots: identical ones asked for together share one read. */
  snapshots: ReadRounds;
  idempotency: Idempotency;
  /** Memory for large bodies in flight. */
  bodies: BodyBudget;
  /** The load policy: whether the queue takes one more event right now. */
  load: IngestLoad;
  worker: Worker;
  logger: Logger;
  now: () => number;
}

const notFound = (): AppError => new AppError('route_not_found', 'No active route is configured at this address');

const PREFIX = '/GWENDPOINTAPI/';

/** `/GWENDPOINTAPI/<base>/<route>[/receipts/<id>]`, a trailing slash tolerated; null otherwise. */
function parsePath(path: string): { base: string; route: string; receiptId?: string } | null {
  const parts = path.slice(PREFIX.length).split('/');
  if (parts[parts.length - 1] === '') parts.pop();
  const [base, route, receipts, receiptId] = parts;
  if (!base || !route) return null;
  if (parts.length === 2) return { base, route };
  if (parts.length === 4 && receipts === 'receipts' && receiptId) return { base, route, receiptId };
  return null;
}

function send(ctx: Context, answer: Answer): void {
  ctx.status = answer.status;
  ctx.body = answer.body;
  if (answer.status >= 400) ctx.type = 'application/problem+json';
  if (answer.location) ctx.set('Location', answer.location);
}

/**
 * Storage trouble while writing never shows as a 500: the client is told to come back (503).
 * Only errors from storage (a driver's coded error, an unreachable database) mean that; anything
 * else is a bug that retrying cannot fix, answered 500 `internal_error` (SPEC §13: 503 means
 * "try again later" only). Invalid payloads never get here: they are 422s.
 */
function unavailable(error: unknown, logger: Logger): Error {
  if (error instanceof AppError) return error;
  if (!isStorageError(error)) return error instanceof Error ? error : new Error(String(error));
  logger.error('storage write failed', { error });
  return new AppError('overloaded', 'The gateway cannot store data right now; retry shortly', {
    headers: { 'Retry-After': '5' },
  });
}

/**
 * The data plane (SPEC §4): route match → method → authentication and authorization before the
 * body is read → content type → body (size limit) → parse → idempotency → sync processing (200)
 * or durable queueing (202). GET routes answer snapshots; `/receipts/<id>` the state of an async
 * submission.
 */
export function dataPlane(deps: DataPlaneDeps): Middleware {
  const handle = route(deps);
  return async (ctx, next) => {
    try {
      await handle(ctx, next);
    } catch (error) {
      // Storage trouble anywhere on a data route (route table, credentials, writes) is a 503.
      if (error instanceof AppError || !isDatabaseUnavailable(error)) throw error;
      throw unavailable(error, deps.logger);
    }
  };
}

function route(deps: DataPlaneDeps): Middleware {
  return async (ctx) => {
    const path = parsePath(ctx.path);
    if (!path) throw notFound();
    const table = await deps.routes.get();
    const live = table.get(routeKey(path.base, path.route));
    if (!live) {
      closeIfBodyPending(ctx);
      throw notFound();
    }
    const expected = path.receiptId !== undefined || live.route.requestType === 'HttpGet' ? 'GET' : 'POST';
    if (ctx.method !== expected && !(expected === 'GET' && ctx.method === 'HEAD')) {
      closeIfBodyPending(ctx);
      throw new AppError('method_not_allowed', `This route answers ${expected} only`, { headers: { Allow: expected } });
    }
    let principal;
    try {
      principal = await authorizeRoute(live, ctx.get('Authorization') || undefined, ctx.request.ip, deps);
    } catch (error) {
      // Refused before reading: answer at once and drop the connection rather than drain a body.
      closeIfBodyPending(ctx);
      throw error;
    }
    const principalString = principalName(principal);
    if (path.receiptId !== undefined) return receipt(ctx, deps, live, path.receiptId);
    if (expected === 'GET') return snapshot(ctx, deps, live);
    await post(ctx, deps, live, principalString);
  };
}

async function post(ctx: Context, deps: DataPlaneDeps, live: LiveRoute, principal: string): Promise<void> {
  if (!isJsonContentType(ctx.get('Content-Type') || undefined)) {
    closeIfBodyPending(ctx);
    throw new AppError(
      'unsupported_media_type',
      'Send the body as application/json (or application/ld+json, application/*+json)',
    );
  }
  const settings = deps.settings.current();
  // Large bodies in flight share a memory budget (issue 38.3): one more is refused before it is read.
  const ticket = deps.bodies.admit(ctx.request.length, settings.bodyLimitBytes);
  try {
    await received(ctx, deps, live, principal, settings.bodyLimitBytes, ticket);
  } finally {
    ticket.release();
  }
}

/** A POST whose body may be read: read, parse, and process or queue it. */
async function received(
  ctx: Context,
  deps: DataPlaneDeps,
  live: LiveRoute,
  principal: string,
  bodyLimitBytes: number,
  ticket: BodyTicket,
): Promise<void> {
  const text = await readBodyText(ctx, bodyLimitBytes, ticket);
  const processor = PROCESSORS[live.route.eventType];
  // Too deep (SPEC §13) or malformed, before anything is stored; a large body in slices (issue 38.3).
  const parsed = await parseRequestJson(processor, text);
  if (!parsed.ok) throw new AppError('invalid_json', parsed.message);
  // After authentication and parsing (SPEC §10): a malformed body is a 400 whatever the key.
  const idempotencyKey = readIdempotencyKey(ctx.req.headers['idempotency-key']);

  // One instant for both: an id is never older than its receive time (see `eventIdFloor`).
  const receivedAt = deps.now();
  const meta: EventMeta = {
    id: newEventId(receivedAt),
    routeId: live.route.id,
    routeName: live.route.name,
    endpointId: live.endpoint.id,
    endpointName: live.endpoint.name,
    eventType: live.route.eventType,
    receivedAt,
    principal,
    sourceIp: ctx.request.ip,
    requestId: String(ctx.state.requestId),
  };
  const scope: IdempotencyScope | null = idempotencyKey
    ? {
        routeId: live.route.id,
        // On a noauth route the caller is known only by its address (SPEC §10).
        principal: principal === 'anonymous' ? `ip:${ctx.request.ip}` : principal,
        key: idempotencyKey,
        bodyHash: await bodyHash(text),
      }
    : null;

  const handle = async (): Promise<Answer> => {
    if (scope) {
      const replay = await deps.idempotency.replay(scope);
      if (replay) return replay;
    }
    const submission = {
      meta,
      raw: text,
      json: parsed.json,
      epcisLenient: live.route.epcisLenient,
      idempotency: scope ? (answer: Answer) => deps.idempotency.record(scope, answer) : undefined,
    };
    if (!live.route.async)
      return deps.sync.process(submission).catch((error: unknown) => Promise.reject(unavailable(error, deps.logger)));
    const admission = deps.load.admitQueued();
    if (!admission.admitted) {
      throw new AppError('overloaded', 'The queue is full; retry later', {
        headers: { 'Retry-After': String(admission.retryAfterSeconds) },
      });
    }
    const answer: Answer = {
      status: 202,
      body: { id: meta.id, status: 'queued' },
      location: receiptPath(live.endpoint.baseRoutePath, live.route.name, meta.id),
    };
    try {
      await deps.queued.enqueue(submission, answer);
    } catch (error) {
      deps.load.released();
      throw unavailable(error, deps.logger);
    }
    deps.worker.notify();
    return answer;
  };
  send(ctx, scope ? await deps.idempotency.guard(scope, handle) : await handle());
}

async function receipt(ctx: Context, deps: DataPlaneDeps, live: LiveRoute, id: string): Promise<void> {
  const row = EVENT_ID.test(id) ? await eventsRepo.findReceipt(deps.db.knex, id) : null;
  // Another route's receipt is as unknown as a made-up id.
  if (!row || row.route_id !== live.route.id || row.parent_id !== null) {
    throw new AppError('receipt_not_found', 'No submission with this id was received on this route');
  }
  const parse = (text: string | null): unknown => (text === null ? undefined : (JSON.parse(text) as unknown));
  const errors = readStoredIssues(row.errors);
  const warnings = readStoredIssues(row.warnings);
  ctx.body = {
    id: row.id,
    eventType: row.event_type,
    status: row.status,
    receivedAt: iso(row.received_at),
    ...(row.processed_at === null ? {} : { processedAt: iso(row.processed_at) }),
    ...(row.result === null ? {} : { result: parse(row.result) }),
    ...(errors === null ? {} : { errors: errors.items }),
    ...(errors?.total === undefined ? {} : { errorCount: errors.total }),
    ...(warnings === null ? {} : { warnings: warnings.items }),
    ...(warnings?.total === undefined ? {} : { warningCount: warnings.total }),
  };
}

async function snapshot(ctx: Context, deps: DataPlaneDeps, live: LiveRoute): Promise<void> {
  const processor = PROCESSORS[live.route.eventType];
  const query = readSnapshotQuery(ctx.query, processor, live.endpoint.id, deps.settings.current().timeZone);
  // Identical snapshots asked for together share one read and one encoding of the answer.
  const page = await deps.snapshots.read(`${live.route.eventType}\n${JSON.stringify(query)}`, async () => {
    const read = await processor.snapshot(deps.db.reads, query);
    return read instanceof SerializedPage ? read : new SerializedPage(JSON.stringify(read));
  });
  ctx.body = page.body;
  ctx.type = 'application/json';
}
