import { num, type Queryable } from './db-types';
import type { OnConflict, RowInsert, WriteBatch } from '../db/write-batch';

const TABLE = 'idempotency_keys';
/** One answer per (route, principal, key): a key stored again keeps the first one. */
const KEEP_FIRST: OnConflict = { columns: ['route_id', 'principal', 'idempotency_key'], then: 'ignore' };

/** A type, not an interface: rows to insert must be plain records (`WriteRow`). */
export type IdempotencyInsert = {
  route_id: number;
  principal: string;
  idempotency_key: string;
  body_hash: string;
  status_code: number;
  response_body: string;
  created_at: number;
};

export interface IdempotencyRecord {
  bodyHash: string;
  statusCode: number;
  responseBody: string;
}

export const idempotencyRepo = {
  /** A concurrent duplicate loses quietly: the first stored answer is the one replayed. */
  insertMany(writes: WriteBatch, rows: IdempotencyInsert[]): void {
    writes.insertRows(TABLE, rows, KEEP_FIRST);
  },

  /** Keys as rows to insert; a key already stored keeps its first answer. */
  rowInsert(rows: IdempotencyInsert[]): RowInsert {
    return { table: TABLE, rows, onConflict: KEEP_FIRST };
  },

  /** The stored answer for this key if it is younger than `since`; an older one is removed (the key is free again). */
  async find(
    db: Queryable,
    routeId: number,
    principal: string,
    key: string,
    since: number,
  ): Promise<IdempotencyRecord | null> {
    const where = { route_id: routeId, principal, idempotency_key: key };
    const row = await db('idempotency_keys')
      .where(where)
      .first<{ body_hash: string; status_code: unknown; response_body: string; created_at: unknown } | undefined>(
        'body_hash',
        'status_code',
        'response_body',
        'created_at',
      );
    if (!row) return null;
    if (num(row.created_at) < since) {
      await db('idempotency_keys').where(where).delete();
      return null;
    }
    return { bodyHash: row.body_hash, statusCode: num(row.status_code), responseBody: row.response_body };
  },

  async deleteOlderThan(db: Queryable, before: number): Promise<number> {
    return db('idempotency_keys').where('created_at', '<', before).delete();
  },
};
