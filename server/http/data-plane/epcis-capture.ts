import type { Context } from 'koa';
import type { Principal } from '../../auth/credentials';
import { routePathOf } from '../../contract/paths';
import type { Db } from '../../db';
import { AppError } from '../../errors';
import type { CaptureBehaviour } from '../../events/processor';
import { readStoredIssues } from '../../events/issues';
import { EVENT_ID } from '../../ids';
import type { Intake } from '../../intake/intake';
import type { LiveRoute } from '../../intake/route-table';
import { eventsRepo } from '../../repositories/events.repo';
import { iso } from '../../time';
import { answerOf } from './answers';
import { CAPTURE_EVENT_LIMIT, epcisError } from './epcis-wire';
import { closeIfBodyPending, isJsonContentType, readBody } from './request-body';

/** `R/capture/<captureID>`: the path alone, as `Location` carries it. */
export const capturePath = (live: LiveRoute, id: string): string =>
  `${routePathOf(live.endpoint.baseRoutePath, live.route.name)}/capture/${id}`;

/** `GS1-Capture-Error-Behaviour`: `rollback` (default) or `proceed`. */
function behaviourOf(ctx: Context): CaptureBehaviour {
  const header = ctx.get('GS1-Capture-Error-Behaviour').trim().toLowerCase();
  if (header === '' || header === 'rollback') return 'rollback';
  if (header === 'proceed') return 'proceed';
  throw epcisError(
    'ValidationException',
    'validation_failed',
    'GS1-Capture-Error-Behaviour must be rollback or proceed',
  );
}

/** How many events a parsed capture body holds (0 when it is not JSON: the intake refuses that). */
function eventCount(text: string): number {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 0;
  }
  if (Array.isArray(json)) return json.length;
  const body = (json as { epcisBody?: { eventList?: unknown } } | null)?.epcisBody;
  return Array.isArray(body?.eventList) ? body.eventList.length : 0;
}

/**
 * `POST R/capture` (SPEC §17): the document is submitted to `R` through the intake core, always
 * queued, with its error behaviour; the submission's id is the capture id, its receipt the job.
 */
export async function capture(
  ctx: Context,
  deps: { intake: Intake; bodyLimitBytes: number },
  live: LiveRoute,
  principal: Principal,
): Promise<void> {
  if (!isJsonContentType(ctx.get('Content-Type') || undefined)) {
    closeIfBodyPending(ctx);
    throw new AppError('unsupported_media_type', 'Send the EPCISDocument as application/json or application/ld+json');
  }
  const behaviour = behaviourOf(ctx);
  const raw = await readBody(ctx, deps.bodyLimitBytes);
  if (eventCount(raw.toString('utf8')) > CAPTURE_EVENT_LIMIT) {
    throw epcisError(
      'CaptureLimitExceededException',
      'payload_too_large',
      `A capture holds at most ${CAPTURE_EVENT_LIMIT} events`,
      { headers: { 'GS1-EPCIS-Capture-Limit': String(CAPTURE_EVENT_LIMIT) } },
    );
  }
  const header = ctx.req.headers['idempotency-key'];
  const outcome = await deps.intake.submit({
    route: live,
    principal,
    raw,
    source: { transport: 'http', ip: ctx.request.ip, requestId: String(ctx.state.requestId), topic: null },
    idempotencyKey: Array.isArray(header) ? header.join(', ') : header,
    queued: true,
    capture: behaviour,
  });
  const answer = answerOf(outcome, live);
  if (answer instanceof AppError) throw answer;
  const id = String(answer.body.id);
  ctx.status = 202;
  ctx.set('Location', capturePath(live, id));
  ctx.body = { captureID: id };
}

/** One error of a capture job, as GS1's capture job lists it. */
const jobError = (issue: { path: string; message: string }) => ({
  type: 'epcisException:ValidationException',
  title: 'Invalid EPCIS event',
  detail: issue.message,
  ...(issue.path === '' ? {} : { pointer: issue.path }),
});

/** `GET R/capture/<captureID>` (SPEC §17): the capture job; another route's or unknown → 404. */
export async function captureJob(ctx: Context, db: Db, live: LiveRoute, id: string): Promise<void> {
  const row = EVENT_ID.test(id) ? await eventsRepo.findById(db.knex, id) : null;
  if (!row?.capture || row.route_id !== live.route.id || row.parent_id !== null) {
    throw epcisError('NoSuchNameException', 'not_found', 'No capture with this id was made on this route');
  }
  const result =
    row.result === null ? null : (JSON.parse(row.result) as { refused?: { path: string; message: string }[] });
  const errors = [
    ...(readStoredIssues(row.errors)?.items ?? []).map(jobError),
    ...(result?.refused ?? []).map(jobError),
  ];
  if (row.status === 'failed' && errors.length === 0) {
    errors.push({
      type: 'epcisException:ImplementationException',
      title: 'Capture failed',
      detail: 'The capture could not be stored',
    });
  }
  ctx.body = {
    captureID: row.id,
    createdAt: iso(row.received_at),
    finishedAt: row.processed_at === null ? null : iso(row.processed_at),
    running: row.status === 'queued',
    success: row.status === 'processed' && errors.length === 0,
    captureErrorBehaviour: row.capture,
    errors,
  };
}
