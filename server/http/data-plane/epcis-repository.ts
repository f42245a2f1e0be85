import type { Context } from 'koa';
import type { Principal } from '../../auth/credentials';
import { isDatabaseUnavailable } from '../../db/unavailable';
import { AppError } from '../../errors';
import type { LiveRoute } from '../../intake/route-table';
import type { DataPlaneDeps } from './deps';
import { capture, captureJob } from './epcis-capture';
import { queryEvents, queryOneEvent } from './epcis-query';
import { asEpcisError, epcisError, limitHeaders, setVersionHeaders } from './epcis-wire';
import { closeIfBodyPending } from './request-body';

/** `R/capture[/<id>]` or `Q/events[/<eventID>]` (SPEC §4, §17); the id as sent, still encoded. */
export interface EpcisPath {
  kind: 'capture' | 'events';
  id?: string;
}

/**
 * Whether the route serves this EPCIS path: capture on HttpPost EpcisObject routes, query on
 * HttpGet ones (SPEC §17). Any other route has no such path: the same 404 as an unknown route.
 */
export function servesEpcisPath(live: LiveRoute, path: EpcisPath): boolean {
  if (live.route.eventType !== 'EpcisObject') return false;
  return live.route.requestType === (path.kind === 'capture' ? 'HttpPost' : 'HttpGet');
}

/** The methods each EPCIS path answers. */
function allowed(path: EpcisPath): string[] {
  if (path.kind === 'capture') return path.id === undefined ? ['POST', 'OPTIONS'] : ['GET', 'OPTIONS'];
  return ['GET', 'HEAD', 'OPTIONS'];
}

/**
 * The EPCIS 2.0 repository of an EpcisObject route (SPEC §17), after its route matched: every
 * answer carries the GS1 version headers; OPTIONS is discovery and needs no credential; the rest
 * is authenticated with the route's own auth (its 401/403/429 answers unchanged) before any body
 * is read, then captured or queried. Errors EPCIS names go out as `epcisException:*` problems.
 */
export async function epcisRepository(
  ctx: Context,
  deps: DataPlaneDeps,
  live: LiveRoute,
  path: EpcisPath,
  authenticate: () => Promise<Principal>,
): Promise<void> {
  setVersionHeaders(ctx);
  const bodyLimitBytes = deps.settings.current().bodyLimitBytes;
  const methods = allowed(path);
  if (ctx.method === 'OPTIONS') {
    ctx.set('Allow', methods.join(', '));
    for (const [name, value] of Object.entries(limitHeaders(bodyLimitBytes))) ctx.set(name, value);
    ctx.status = 204;
    return;
  }
  if (!methods.includes(ctx.method)) {
    closeIfBodyPending(ctx);
    throw new AppError('method_not_allowed', `This path answers ${methods.join(', ')}`, {
      headers: { Allow: methods.join(', ') },
    });
  }
  const principal = await authenticate();
  try {
    const id = path.id === undefined ? undefined : decodeId(path.id);
    if (path.kind === 'capture') {
      if (id === undefined) await capture(ctx, { intake: deps.intake, bodyLimitBytes }, live, principal);
      else await captureJob(ctx, deps.db, live, id);
    } else if (id === undefined) await queryEvents(ctx, deps.db, live, Date.now());
    else await queryOneEvent(ctx, deps.db, live, id, Date.now());
  } catch (error) {
    if (error instanceof AppError || isDatabaseUnavailable(error)) throw asEpcisError(error, bodyLimitBytes);
    deps.logger.error('EPCIS request failed', { requestId: String(ctx.state.requestId), error });
    throw epcisError('ImplementationException', 'internal_error', 'The repository could not complete this request');
  }
}

function decodeId(id: string): string {
  try {
    return decodeURIComponent(id);
  } catch {
    throw epcisError('NoSuchNameException', 'not_found', 'No such name here');
  }
}
