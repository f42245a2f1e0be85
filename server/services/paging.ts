import type { FieldError } from '../contract/errors';

export interface ListQuery {
  /** The parameters as received, to read the list's own filters from. */
  query: Record<string, unknown>;
  limit: number;
  cursor?: string;
  /** Problems found so far; the caller adds its filters' and throws them all at once. */
  errors: FieldError[];
}

/**
 * Reads the query of a paged list (`/events`, `/audit`): the list's own `filters`, `limit`
 * (1–1000, default 100) and `cursor`. Every list answers a parameter it does not know and a
 * cursor it did not issue with 400, never with a silent first page: a typo in a filter would
 * otherwise look like an answer.
 */
export function readListQuery(
  input: unknown,
  options: { filters: readonly string[]; isCursor: (cursor: string) => boolean },
): ListQuery {
  const query = (input ?? {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  const known = [...options.filters, 'limit', 'cursor'];
  for (const key of Object.keys(query))
    if (!known.includes(key)) errors.push({ path: `/${key}`, message: `Unknown parameter "${key}"` });
  const limit = readLimit(query.limit, errors);
  const cursor = query.cursor === undefined || query.cursor === '' ? undefined : query.cursor;
  if (cursor !== undefined && (typeof cursor !== 'string' || !options.isCursor(cursor))) {
    errors.push({ path: '/cursor', message: 'cursor is not valid' });
    return { query, limit, errors };
  }
  return cursor === undefined ? { query, limit, errors } : { query, limit, cursor, errors };
}

function readLimit(value: unknown, errors: FieldError[]): number {
  if (value === undefined || value === null || value === '') return 100;
  const parsed =
    typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (Number.isInteger(parsed) && parsed >= 1 && parsed <= 1000) return parsed;
  errors.push({ path: '/limit', message: 'limit must be an integer from 1 to 1000' });
  return 100;
}
