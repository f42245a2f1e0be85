import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { dialectOf, type Queryable } from './queryable';
import {
  boundValue,
  inlineBindings,
  SqlBytes,
  sqliteLiteral,
  SqlUtf8,
  valuesInsert,
  type Literal,
  type OnConflict,
  type SqlValue,
} from './sql-literal';
import { MAX_SCRIPT_CHARS } from './sqlite-exec';

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
  const pieces = new LongTexts(db);
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

/**
 * A text this long (UTF-8 bytes) is written in pieces, and each piece is one statement: binding
 * copies the value on the main thread, and a copy of 100 MiB into fresh memory held it for most of
 * a second (docs/performance.md, P66). A piece of 1 MiB is a few milliseconds, and the turns of
 * the event loop between the statements are where `/_health` is answered.
 */
export const TEXT_PIECE_BYTES = 1024 * 1024;

/**
 * Long `SqlUtf8` values of the rows being inserted, sent ahead as pieces into `text_pieces`
 * (migrations/20261205090000_text_pieces.ts) and put together by the database, in the statement
 * that inserts the row, from a subquery; the pieces are deleted right after. Bytes, not text, are
 * cut: a piece may end inside a character, and the pieces are joined as bytes before they are
 * read as text. Every statement must run inside the transaction that inserts the rows, so a
 * rollback takes the pieces with it.
 */
class LongTexts {
  private readonly sqlite: boolean;
  private pending: WriteQuery[] = [];
  private slots: string[] = [];

  constructor(private readonly db: Queryable) {
    this.sqlite = dialectOf(db) === 'sqlite';
  }

  /**
   * `row` as the driver binds it (`boundValue`), with each long text replaced by the subquery
   * that joins its pieces; the row itself when it has nothing to convert.
   */
  bound(row: WriteRow): Record<string, unknown> {
    let bound: Record<string, unknown> | null = null;
    for (const [column, value] of Object.entries(row)) {
      if (!(value instanceof SqlUtf8) && !(value instanceof SqlBytes)) continue;
      bound ??= { ...row };
      bound[column] =
        value instanceof SqlUtf8 && value.length > TEXT_PIECE_BYTES ? this.send(value.bytes) : boundValue(value);
    }
    return bound ?? row;
  }

  /** The statements that send the pieces taken since the last call. */
  writes(): WriteQuery[] {
    const writes = this.pending;
    this.pending = [];
    return writes;
  }

  /** The statements that delete the pieces once the rows are in. */
  cleared(): WriteQuery[] {
    const slots = this.slots;
    this.slots = [];
    return slots.map((slot) => this.db.raw('DELETE FROM text_pieces WHERE slot = ?', [slot]));
  }

  private send(bytes: Buffer): Knex.Raw {
    // Random: on PostgreSQL several instances may be writing pieces at once.
    const slot = randomUUID();
    this.slots.push(slot);
    for (let from = 0, seq = 0; from < bytes.length; from += TEXT_PIECE_BYTES, seq++)
      this.pending.push(
        this.db.raw('INSERT INTO text_pieces (slot, seq, piece) VALUES (?, ?, ?)', [
          slot,
          seq,
          bytes.subarray(from, from + TEXT_PIECE_BYTES),
        ]),
      );
    // The bytes were checked to be UTF-8 before they became a `SqlUtf8`: joined, they are text.
    // SQLite joins the rows of an ordered subquery in their order (an aggregate never flattens a
    // subquery that has an ORDER BY), read along the primary key: `group_concat(… ORDER BY seq)`
    // sorts a copy of every piece first, in memory here (`temp_store = MEMORY`).
    return this.db.raw(
      this.sqlite
        ? "(SELECT group_concat(piece, '') FROM (SELECT piece FROM text_pieces WHERE slot = ? ORDER BY seq))"
        : "(SELECT convert_from(string_agg(piece, ''::bytea ORDER BY seq), 'UTF8') FROM text_pieces WHERE slot = ?)",
      [slot],
    );
  }
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
  // A long `SqlUtf8` goes through Knex, in pieces (`LongTexts`), never decoded whole.
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
