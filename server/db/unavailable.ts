/** Socket-level failures and the server-side codes PostgreSQL uses when it goes away or refuses. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
const PG_UNAVAILABLE = /^(08|57P0[1-3]|53)/; // connection exception, shutdown/cannot connect, insufficient resources
const SQLITE_UNAVAILABLE = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_CANTOPEN']);

/**
 * Whether an error means "storage is unavailable right now" (database down, unreachable, full or
 * busy) rather than a bug. Those answer 503 with Retry-After and the gateway recovers by itself.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, name, message } = error as Error & { code?: unknown };
  if (
    name === 'KnexTimeoutError' ||
    /Connection terminated|Client has encountered a connection error|timeout acquiring a connection/i.test(message)
  ) {
    return true;
  }
  if (typeof code !== 'string') return false;
  return (
    code === 'WRITER_UNREACHABLE' ||
    NETWORK_CODES.has(code) ||
    PG_UNAVAILABLE.test(code) ||
    SQLITE_UNAVAILABLE.has(code)
  );
}

/**
 * Whether an error came from storage at all (the database driver's coded errors, or an
 * unavailable database) rather than from the gateway's own code: the former may pass when tried
 * again, the latter never will.
 */
export function isStorageError(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && (/^SQLITE_/.test(code) || /^[0-9A-Z]{5}$/.test(code) || NETWORK_CODES.has(code));
}
