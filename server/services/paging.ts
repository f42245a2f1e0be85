import { validationFailed } from '../errors';

/** Reads `limit` (1–1000, default 100) and an opaque `cursor` from a query object. */
export function readPaging(query: unknown): { limit: number; cursor?: string } {
  const q = (query ?? {}) as { limit?: unknown; cursor?: unknown };
  let limit = 100;
  if (q.limit !== undefined && q.limit !== null && q.limit !== '') {
    const parsed =
      typeof q.limit === 'number'
        ? q.limit
        : typeof q.limit === 'string' && /^\d+$/.test(q.limit)
          ? Number(q.limit)
          : NaN;
    if (!Number.isInteger(parsed) || parsed < 1 || parsed > 1000) {
      throw validationFailed([{ path: '/limit', message: 'limit must be an integer from 1 to 1000' }]);
    }
    limit = parsed;
  }
  const cursor = typeof q.cursor === 'string' && q.cursor.length > 0 ? q.cursor : undefined;
  return cursor === undefined ? { limit } : { limit, cursor };
}
