import type { Context, Middleware } from 'koa';
import { API_ROOT } from '../../contract/paths';
import { isDatabaseUnavailable } from '../../db/unavailable';
import { AppError } from '../../errors';
import { SerializedPage } from '../../events/processor';
import { readStoredIssues } from '../../events/issues';
import { PROCESSORS } from '../../events/registry';
import { EVENT_ID } from '../../ids';
import type { Logger } from '../../logger';
import { eventsRepo } from '../../repositories/events.repo';
import { iso } from '../../time';
import { authorizeRoute } from '../../intake/authorize';
import { routeKey, type LiveRoute } from '../../intake/route-table';
import type { Principal } from '../../auth/credentials';
import { credentialFromHeader } from '../authorization-header';
import { answerOf } from './answers';
import type { DataPlaneDeps } from './deps';
import { epcisRepository, servesEpcisPath, type EpcisPath } from './epcis-repository';
import { closeIfBodyPending, isJsonContentType } from './request-body';
import { readBodyPayload } from './request-payload';
import { readSnapshotQuery } from './snapshot-query';
import { characterCount } from '../../validation';

export type { DataPlaneDeps };

const notFound = (): AppError => new AppError('route_not_found', 'No active route is configured at this address');

const PREFIX = `${API_ROOT}/`;

/** A data route's path: the route, and a receipt or an EPCIS repository path below it (SPEC §4). */
interface DataPath {
  base: string;
  route: string;
  receiptId?: string;
  epcis?: EpcisPath;
}

/**
 * `/GWENDPOINTAPI/<base>/<route>[/receipts/<id> | /capture[/<id>] | /events[/<eventID>]]`, a
 * trailing slash tolerated; null otherwise.
 */
function parsePath(path: string): DataPath | null {
  const parts = path.slice(PREFIX.length).split('/');
  if (parts[parts.length - 1] === '') parts.pop();
  const [base, route, sub, id] = parts;
  if (!base || !route) return null;
  if (parts.length === 2) return { base, route };
  if (parts.length === 4 && sub === 'receipts' && id) return { base, route, receiptId: id };
  if ((sub === 'capture' || sub === 'events') && parts.length <= 4) {
    return { base, route, epcis: { kind: sub, ...(id ? { id } : {}) } };
  }
  return null;
}

/**
 * Storage trouble anywhere on a data route (route table, credentials) is a 503 `overloaded`: the
 * client is told to come back, never a 500.
 */
function unavailable(error: unknown, logger: Logger): AppError {
  logger.error('storage unavailable', { error });
  return new AppError('overloaded', 'The gateway cannot store data right now; retry shortly', {
    headers: { 'Retry-After': '5' },
  });
}

/**
 * The HTTP adapter of the data plane (SPEC §4): route match → method → authentication and
 * authorization before the body is read → content type → body (size limit, `Expect: 100-continue`)
 * → the intake core, whose outcome becomes the status. GET routes answer snapshots;
 * `/receipts/<id>` the state of an async submission.
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
    // Loaded and unchanged, the table is at hand: no turn of the microtask queue for it.
    const current = deps.routes.get();
    const table = current instanceof Promise ? await current : current;
    const live = table.get(routeKey(path.base, path.route));
    if (!live || (path.epcis && !servesEpcisPath(live, path.epcis))) {
      closeIfBodyPending(ctx);
      throw notFound();
    }
    // For the refusal log (issue 40): which route a refused request was meant for.
    ctx.state.route = live.route.name;
    const authenticate = async () => {
      try {
        const credential = credentialFromHeader(ctx.get('Authorization') || undefined);
        return await authorizeRoute(live, credential, ctx.request.ip, deps);
      } catch (error) {
        // Refused before reading: answer at once and drop the connection rather than drain a body.
        closeIfBodyPending(ctx);
        throw error;
      }
    };
    if (path.epcis) return epcisRepository(ctx, deps, live, path.epcis, authenticate);
    const expected = path.receiptId !== undefined || live.route.requestType === 'HttpGet' ? 'GET' : 'POST';
    if (ctx.method !== expected && !(expected === 'GET' && ctx.method === 'HEAD')) {
      closeIfBodyPending(ctx);
      throw new AppError('method_not_allowed', `This route answers ${expected} only`, { headers: { Allow: expected } });
    }
    // A noauth route takes anyone, whatever credential is presented (SPEC §4; `authorizeRoute`).
    const principal: Principal = live.route.authType === 'noauth' ? { kind: 'anonymous' } : await authenticate();
    if (path.receiptId !== undefined) return receipt(ctx, deps, live, path.receiptId);
    if (expected === 'GET') return snapshot(ctx, deps, live);
    await post(ctx, deps, live, principal);
  };
}

async function post(ctx: Context, deps: DataPlaneDeps, live: LiveRoute, principal: Principal): Promise<void> {
  if (!isJsonContentType(ctx.get('Content-Type') || undefined)) {
    closeIfBodyPending(ctx);
    throw new AppError(
      'unsupported_media_type',
      'Send the body as application/json (or application/ld+json, application/*+json)',
    );
  }
  const readerId = readerIdParameter(ctx);
  const limit = deps.settings.current().bodyLimitBytes;
  // Large bodies in flight share a memory budget (issue 38.3): one more is refused before it is read.
  const ticket = deps.bodies.admit(ctx.request.length, limit);
  let outcome;
  try {
    // Decoded at once (a large body stays bytes): never kept twice while the intake works (issue 38.3).
    const raw = await readBodyPayload(ctx, limit, ticket);
    // As Node gives it: repeated headers joined by `, ` (the intake checks its length).
    const header = ctx.req.headers['idempotency-key'];
    const idempotencyKey = Array.isArray(header) ? header.join(', ') : header;
    outcome = await deps.intake.submit({
      route: live,
      principal,
      raw,
      source: {
        transport: 'http',
        ip: ctx.request.ip,
        requestId: String(ctx.state.requestId),
        topic: null,
        ...(readerId === undefined ? {} : { readerId }),
      },
      idempotencyKey,
    });
  } finally {
    ticket.release();
  }
  const answer = answerOf(outcome, live);
  if (answer instanceof AppError) throw answer;
  ctx.status = answer.status;
  ctx.body = answer.body;
  // Straight to Node (nothing is sent before Koa responds): Koa's `set` builds arrays per call.
  if (answer.location) ctx.res.setHeader('Location', answer.location);
}

/**
 * `?readerId=` (SPEC §16): names the reader for every read and status message of the body that
 * names none (Zebra management events never do). 1–128 characters, given once.
 */
function readerIdParameter(ctx: Context): string | undefined {
  const value = ctx.query.readerId;
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value.length > 0 && characterCount(value) <= 128) return value;
  closeIfBodyPending(ctx);
  const message = 'readerId must be given once, 1 to 128 characters';
  throw new AppError('invalid_query', message, { errors: [{ path: '/readerId', message }] });
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
