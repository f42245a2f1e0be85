/** Repositories run on the shared connection or inside a caller's transaction (defined in db/). */
export { dialectOf, type Queryable } from '../db/queryable';

/** SQLite hands booleans back as 0/1 and PostgreSQL bigints as strings; these undo both. */
export const bool = (value: unknown): boolean => value === true || value === 1 || value === '1';
export const num = (value: unknown): number => (typeof value === 'number' ? value : Number(value));
export const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : num(value));

/** Case-insensitive uniqueness is enforced on a lower-cased shadow column. */
export const nameKey = (name: string): string => name.toLowerCase();

/** Both dialects report a violated unique index; callers turn it into a stable 409 code. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number; message?: string } | null;
  return (e?.code === 'SQLITE_CONSTRAINT' && /UNIQUE/i.test(e.message ?? '')) || e?.code === '23505';
}
