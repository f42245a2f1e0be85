import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { dialectOf, type Queryable } from './queryable';
import { boundValue, SqlBytes, SqlUtf8, type SqlValue } from './sql-literal';

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
export class TextPieces {
  private readonly sqlite: boolean;
  private pending: Knex.Raw[] = [];
  private slots: string[] = [];

  constructor(private readonly db: Queryable) {
    this.sqlite = dialectOf(db) === 'sqlite';
  }

  /**
   * `row` as the driver binds it (`boundValue`), with each long text replaced by the subquery
   * that joins its pieces; the row itself when it has nothing to convert.
   */
  bound(row: Record<string, SqlValue>): Record<string, unknown> {
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
  writes(): Knex.Raw[] {
    const writes = this.pending;
    this.pending = [];
    return writes;
  }

  /** The statements that delete the pieces once the rows are in. */
  cleared(): Knex.Raw[] {
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
