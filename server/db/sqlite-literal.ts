/**
 * SQLite literals, for the one write that cannot afford bound parameters: the group commit's
 * acknowledgement batch (see `commitAckBatch` in repositories/ack-batch.repo.ts). Every value is rendered so that it cannot end the
 * literal it is in: numbers must be finite, strings are single-quoted with quotes doubled (SQLite
 * has no backslash escapes), and a string holding NUL, which would end the C string SQLite parses,
 * is written as hex bytes instead. Nothing else is accepted, so no input can become SQL.
 */
export type SqlValue = string | number | boolean | null | undefined;

export function sqliteLiteral(value: SqlValue): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot store ${value} in SQLite`);
    return String(value);
  }
  if (typeof value !== 'string') throw new TypeError(`cannot render a ${typeof value} as a SQLite literal`);
  if (value.includes('\0')) return `CAST(X'${Buffer.from(value, 'utf8').toString('hex')}' AS TEXT)`;
  return `'${value.includes("'") ? value.replaceAll("'", "''") : value}'`;
}

/** `INSERT INTO <table> (<columns>) VALUES (…),(…)` for rows that all have these columns. */
export function sqliteValuesInsert<Row extends { [K in keyof Row]: SqlValue }>(
  table: string,
  columns: readonly (keyof Row & string)[],
  rows: readonly Row[],
  suffix = '',
): string {
  const tuples = rows.map((row) => `(${columns.map((column) => sqliteLiteral(row[column])).join(',')})`);
  return `INSERT INTO "${table}" (${columns.map((column) => `"${column}"`).join(',')}) VALUES ${tuples.join(',')}${suffix};`;
}
