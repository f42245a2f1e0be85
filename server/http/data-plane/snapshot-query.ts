import type { FieldError } from '../../contract/errors';
import { AppError } from '../../errors';
import type { EventProcessor, SnapshotQuery } from '../../events/processor';
import { parseInstant } from '../../events/processors/snapshot-support';

const COMMON = ['since', 'until', 'limit', 'cursor'] as const;

/**
 * Validates a GET route's query string: the common paging parameters plus the event type's own
 * filters. Unknown or repeated parameters and bad values answer 400 with every problem listed.
 */
export function readSnapshotQuery(
  query: Record<string, string | string[] | undefined>,
  processor: EventProcessor<unknown>,
  endpointId: number,
  timeZone: string,
): SnapshotQuery {
  const errors: FieldError[] = [];
  const allowed = new Set<string>([...COMMON, ...processor.filterNames]);
  const single: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (!allowed.has(name))
      errors.push({ path: `/${name}`, message: `Unknown parameter "${name}"; allowed: ${[...allowed].join(', ')}` });
    else if (Array.isArray(value)) errors.push({ path: `/${name}`, message: `${name} may be given once` });
    else if (value !== undefined) single[name] = value;
  }
  let limit = 100;
  if (single.limit !== undefined) {
    limit = /^\d{1,4}$/.test(single.limit) ? Number(single.limit) : NaN;
    if (!(limit >= 1 && limit <= 1000))
      errors.push({ path: '/limit', message: 'limit must be an integer from 1 to 1000' });
  }
  if (single.cursor !== undefined && !processor.isCursor(single.cursor))
    errors.push({ path: '/cursor', message: 'cursor is not one this route handed out (use nextCursor as given)' });
  const since = single.since === undefined ? undefined : parseInstant('since', single.since, errors, timeZone);
  const until = single.until === undefined ? undefined : parseInstant('until', single.until, errors, timeZone);
  const own = Object.fromEntries(
    Object.entries(single).filter(([name]) => !(COMMON as readonly string[]).includes(name)),
  );
  const filters = processor.parseFilters(own, timeZone);
  if (!filters.ok) errors.push(...filters.errors);
  if (errors.length > 0) throw new AppError('invalid_query', errors[0]?.message ?? 'Invalid query', { errors });
  return { endpointId, since, until, limit, cursor: single.cursor, filters: filters.ok ? filters.filters : {} };
}
