import { allPrepared, stateOf, type SqliteConnection } from './sqlite-exec';

interface Kept<T> {
  version: number;
  value: T;
}

/** Answers kept per connection; a handful of distinct queries (pages a dashboard polls) is the use. */
const MAX_KEPT = 32;
/**
 * Room for the largest inventory page (1 000 items) with margin (its size: docs/performance.md,
 * P06): larger answers are not kept.
 */
const MAX_KEPT_CHARS = 1 << 20;

/**
 * Runs `scalarSql` (a SELECT of one value: one column, one row) unless the same statement with
 * the same bindings was answered on this connection and nothing has been committed to the
 * database since; then the kept answer is given again. Statement and check are one statement,
 * one trip, one read snapshot:
 *
 *   SELECT data_version, CASE WHEN data_version = <kept version> THEN NULL ELSE (<scalar>) END
 *
 * SQLite evaluates a CASE branch only when it is taken, so an unchanged database costs the
 * version lookup alone, and a changed one returns the new answer with the version it was read at
 * (the same snapshot: never a newer version on older data). Why: a snapshot page polled by many
 * clients between two commits is otherwise written again for every one of them, at a CPU cost
 * per page that adds up (figures: docs/performance.md, P06). Under steady
 * ingestion every commit changes the version and each poll reads afresh, exactly as without
 * this.
 *
 * `decode` turns the scalar's text into the answer; it runs once per new answer, not per hit, and
 * the answer it returns is shared by every hit, so it must not be mutated. Whatever else it
 * depends on goes into `decodeKey`: answers are kept per statement, bindings and `decodeKey`.
 */
export async function readUnlessUnchanged<T>(
  connection: SqliteConnection,
  scalarSql: string,
  bindings: readonly unknown[],
  decode: (text: string | null) => T,
  decodeKey = '',
): Promise<T> {
  const sql =
    'SELECT data_version AS version, ' +
    `CASE WHEN data_version = ? THEN NULL ELSE (${scalarSql}) END AS value FROM pragma_data_version`;
  const answers = stateOf(connection).kept;
  if (!answers) {
    const [row] = await allPrepared<{ value: string | null }>(connection, sql, [null, ...bindings]);
    return decode(row?.value ?? null);
  }
  const key = `${scalarSql}\n${JSON.stringify(bindings)}\n${decodeKey}`;
  const previous = answers.get(key) as Kept<T> | undefined;
  const [row] = await allPrepared<{ version: number; value: string | null }>(connection, sql, [
    previous?.version ?? null,
    ...bindings,
  ]);
  if (!row) throw new Error('pragma_data_version returned no row');
  // Most recently used last: the first key is the one to drop.
  answers.delete(key);
  if (previous && row.version === previous.version) {
    answers.set(key, previous);
    return previous.value;
  }
  const value = decode(row.value);
  if ((row.value?.length ?? 0) <= MAX_KEPT_CHARS) {
    if (answers.size >= MAX_KEPT) answers.delete(answers.keys().next().value as string);
    answers.set(key, { version: row.version, value });
  }
  return value;
}
