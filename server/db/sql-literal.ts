/**
 * SQL literals, for the writes that cannot afford bound parameters: the writes a group
 * transaction sends as one script (`WriteBatch` in db/write-batch.ts, `SqliteScriptTransaction`
 * in db/sqlite-transaction.ts), acknowledgements included, on SQLite and on PostgreSQL. Every
 * value is rendered so that it cannot end the literal it is in: numbers must be finite (negative
 * ones in parentheses), strings are single-quoted with quotes doubled (SQLite has no backslash
 * escapes; PostgreSQL has none with standard_conforming_strings, which the scripts set), and a
 * string holding NUL is written as hex bytes on SQLite (NUL would end the C string it parses) and
 * refused on PostgreSQL (its text cannot hold NUL); bytes (`SqlBytes`) are written as hex once
 * their text is checked to be hex. Nothing else is accepted, so no input can become SQL.
 */
export type SqlValue = string | number | boolean | SqlBytes | SqlUtf8 | null | undefined;

/**
 * Bytes, given as their hex text: a BLOB on SQLite, `bytea` on PostgreSQL. Kept as text, so a value
 * that arrives as hex (an EPC) becomes its literal without a `Buffer` in between, which cost the
 * main thread more than the rest of the row's literal (docs/decisions/0384-inventory-epc-as-bytes.md);
 * bound through Knex it goes as a `Buffer` (`boundValue`).
 */
export class SqlBytes {
  constructor(readonly hex: string) {}
}

/**
 * Text given as its UTF-8 bytes, already checked to be UTF-8 (`isUtf8`): stored as text, like a
 * string. A large body travels so from the socket to the database (issue 38.3): decoding 100 MiB
 * into one string, or binding one string of that size, holds the main thread for most of a second
 * on a machine where fresh memory is slow to touch (docs/performance.md, P66). A long one is
 * written in pieces (`text-pieces.ts`).
 */
export class SqlUtf8 {
  constructor(readonly bytes: Buffer) {}

  get length(): number {
    return this.bytes.length;
  }

  /** The text itself: only for a value short enough to decode at once. */
  text(): string {
    return this.bytes.toString('utf8');
  }
}

const WHOLE_BYTES_OF_HEX = /^(?:[0-9A-Fa-f]{2})*$/;

/** The hex text of `bytes`, refused unless it is whole bytes of hex digits (nothing else can end up in SQL). */
function checkedHex(bytes: SqlBytes): string {
  if (!WHOLE_BYTES_OF_HEX.test(bytes.hex)) throw new TypeError('bytes must be given as whole bytes of hex');
  return bytes.hex;
}

/** A value as a driver binds it: `SqlBytes` as a `Buffer`, `SqlUtf8` as its text, the rest as they are. */
export const boundValue = (value: SqlValue): Exclude<SqlValue, SqlBytes | SqlUtf8> | Buffer =>
  value instanceof SqlBytes ? Buffer.from(checkedHex(value), 'hex') : value instanceof SqlUtf8 ? value.text() : value;

/** How one dialect writes a value as SQL text. */
export type Literal = (value: SqlValue) => string;

/** A finite number; a negative one in parentheses, so `a-?` cannot become the comment `a--5`. */
function numberLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`cannot store ${value} in the database`);
  return value < 0 ? `(${value})` : String(value);
}

export function sqliteLiteral(value: SqlValue): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') return numberLiteral(value);
  if (value instanceof SqlBytes) return `X'${checkedHex(value)}'`;
  if (value instanceof SqlUtf8) return sqliteLiteral(value.text());
  if (typeof value !== 'string') throw new TypeError(`cannot render a ${typeof value} as a SQLite literal`);
  if (value.includes('\0')) return `CAST(X'${Buffer.from(value, 'utf8').toString('hex')}' AS TEXT)`;
  return `'${value.includes("'") ? value.replaceAll("'", "''") : value}'`;
}

/**
 * The same for PostgreSQL, in a script that sets `standard_conforming_strings` on (the default
 * since 9.1), where a doubled quote is the only escape and a backslash is just a backslash.
 * PostgreSQL text cannot hold NUL at all, so such a string is refused (bound, it is refused too).
 */
export function postgresLiteral(value: SqlValue): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') return numberLiteral(value);
  if (value instanceof SqlBytes) return `'\\x${checkedHex(value)}'::bytea`;
  if (value instanceof SqlUtf8) return postgresLiteral(value.text());
  if (typeof value !== 'string') throw new TypeError(`cannot render a ${typeof value} as a PostgreSQL literal`);
  if (value.includes('\0')) throw new TypeError('PostgreSQL text cannot hold NUL');
  return `'${value.includes("'") ? value.replaceAll("'", "''") : value}'`;
}

/** What an inserted row that collides on `columns` does: replace the stored one, or give way to it. */
export interface OnConflict {
  columns: readonly string[];
  then: 'merge' | 'ignore';
}

/** A table or column name as an SQL identifier (both dialects): quoted, so no name can be a keyword. */
export const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * `INSERT INTO <table> (<columns>) VALUES (…),(…) [ON CONFLICT …]` (no trailing semicolon); a
 * column a row does not have is NULL. `merge` sets every inserted column from the new row but
 * the conflict columns: those are equal already, and setting them would make SQLite rewrite the
 * unique index entry of every merged row, a measurable cost per upsert (figures:
 * docs/performance.md, P03).
 */
export function valuesInsert<Row extends { [K in keyof Row]: SqlValue }>(
  literal: Literal,
  table: string,
  columns: readonly (keyof Row & string)[],
  rows: readonly Row[],
  onConflict?: OnConflict,
): string {
  // One string built in place: no array per row and per tuple (a flush renders every row of its
  // acknowledgements here; issue 37).
  let sql = `INSERT INTO ${quoteIdentifier(table)} (${columns.map(quoteIdentifier).join(',')}) VALUES `;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    sql += r === 0 ? '(' : ',(';
    for (let c = 0; c < columns.length; c++) sql += (c === 0 ? '' : ',') + literal(row[columns[c]]);
    sql += ')';
  }
  if (onConflict) {
    const updated = columns.filter((column) => !onConflict.columns.includes(column));
    const action =
      onConflict.then === 'ignore' || updated.length === 0
        ? 'NOTHING'
        : `UPDATE SET ${updated.map((column) => `${quoteIdentifier(column)} = excluded.${quoteIdentifier(column)}`).join(',')}`;
    sql += ` ON CONFLICT (${onConflict.columns.map(quoteIdentifier).join(',')}) DO ${action}`;
  }
  return sql;
}

/**
 * A statement as Knex compiles it (`toSQL()`, `?` placeholders) with its placeholders replaced by
 * literals. Placeholders inside quoted text ('…', "…", `…`) are left alone, as the database would.
 * Throws when the number of placeholders and values differ, or a value has no literal form (the
 * caller then binds instead).
 */
export function inlineBindings(literal: Literal, sql: string, bindings: readonly unknown[]): string {
  const parts: string[] = [];
  let next = 0;
  let from = 0;
  const special = /[?'"`]/g;
  for (let match = special.exec(sql); match !== null; match = special.exec(sql)) {
    const at = match.index;
    if (match[0] !== '?') {
      // Skip to the closing quote (a doubled quote closes and reopens: same result).
      const close = sql.indexOf(match[0], at + 1);
      if (close < 0) throw new TypeError('unterminated quote');
      special.lastIndex = close + 1;
      continue;
    }
    if (next >= bindings.length) throw new TypeError('more placeholders than values');
    parts.push(sql.slice(from, at), literal(bindings[next++] as SqlValue));
    from = at + 1;
  }
  if (next !== bindings.length) throw new TypeError('more values than placeholders');
  parts.push(sql.slice(from));
  return parts.join('');
}
