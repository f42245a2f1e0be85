import type { Knex } from 'knex';
import type { Queryable } from './queryable';
import {
  inlineBindings,
  sqliteLiteral,
  SqlUtf8,
  valuesInsert,
  type Literal,
  type OnConflict,
  type SqlValue,
} from './sql-literal';
import { MAX_SCRIPT_CHARS } from './sqlite-exec';
import { TEXT_PIECE_BYTES, TextPieces } from './text-pieces';

/**
 * Writes as data, and their SQL: as Knex statements to run one by one, or as one script of
 * literal statements for one trip. Shared by `WriteBatch` and SQLite's script transaction.
 */

export type { OnConflict } from './sql-literal';

/** A statement as Knex builds it: a query builder or a raw statement, not yet run. */
export type WriteQuery = Knex.QueryBuilder | Knex.Raw;

/** One row to insert: column → value. */
export type WriteRow = Record<string, SqlValue>;

export type Write = { query: WriteQuery } | RowInsert;

/** Rows for one table, inserted as one multi-row INSERT. */
export interface RowInsert {
  table: string;
  rows: readonly WriteRow[];
  onConflict?: OnConflict;
}

/** Rows per INSERT when the rows go through Knex: far below PostgreSQL's bound-variable limit. */
const KNEX_INSERT_CHUNK = 200;

/** The writes as Knex statements, to run one by one (in order). */
export function knexStatements(db: Queryable, writes: readonly Write[]): WriteQuery[] {
  return writes.flatMap((write) =>
    'query' in write ? [write.query] : knexInserts(db, write.table, write.rows, write.onConflict),
  );
}

function knexInserts(db: Queryable, table: string, rows: readonly WriteRow[], onConflict?: OnConflict) {
  const queries: WriteQuery[] = [];
  const pieces = new TextPieces(db);
  for (let start = 0; start < rows.length; start += KNEX_INSERT_CHUNK) {
    const chunk = rows.slice(start, start + KNEX_INSERT_CHUNK).map((row) => pieces.bound(row));
    queries.push(...pieces.writes());
    const insert = db(table).insert(chunk);
    if (!onConflict) queries.push(insert);
    else if (onConflict.then === 'merge') queries.push(insert.onConflict([...onConflict.columns]).merge());
    else queries.push(insert.onConflict([...onConflict.columns]).ignore());
    queries.push(...pieces.cleared());
  }
  return queries;
}

/** Every column any of the rows names. */
function columnsOf(rows: readonly WriteRow[]): string[] {
  const names = new Set<string>();
  for (const row of rows) for (const name of Object.keys(row)) names.add(name);
  return [...names];
}

/**
 * The writes as one script (empty for none), or null when one cannot be made (a value without a
 * literal, too long).
 */
export const sqliteScript = (writes: readonly Write[]): string | null => scriptOf(writes, sqliteLiteral);

export function scriptOf(writes: readonly Write[], literal: Literal): string | null {
  if (writes.length === 0) return '';
  // One string appended to (not an array joined): the text is copied once, where the driver reads it.
  let script = '';
  let statements = 0;
  let length = 0;
  // A value longer than a script may be is refused before its literal is made: a 100 MiB
  // payload is not copied into a literal only to be sent through Knex after all (issue 38.3).
  // A long `SqlUtf8` goes through Knex, in pieces (`TextPieces`), never decoded whole.
  const bounded: Literal = (value) => {
    if (typeof value === 'string' && value.length > MAX_SCRIPT_CHARS)
      throw new RangeError('value too long for a script');
    if (value instanceof SqlUtf8 && value.length > TEXT_PIECE_BYTES) throw new RangeError('text sent in pieces');
    return literal(value);
  };
  for (const write of writes) {
    let sql: string;
    try {
      if ('query' in write) {
        const compiled = write.query.toSQL();
        if (!compiled.sql) continue;
        sql = inlineBindings(bounded, compiled.sql, compiled.bindings);
      } else {
        sql = valuesInsert(bounded, write.table, columnsOf(write.rows), write.rows, write.onConflict);
      }
    } catch {
      return null;
    }
    length += sql.length + 2;
    if (length > MAX_SCRIPT_CHARS) return null;
    script += statements++ === 0 ? sql : `;\n${sql}`;
  }
  return `${script};`;
}
