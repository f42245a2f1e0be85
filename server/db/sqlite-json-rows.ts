import type { Knex } from 'knex';
import { quoteIdentifier } from './sql-literal';
import { allPrepared, withSqliteConnection } from './sqlite-exec';

export interface JsonRowsShape<Column extends string> {
  /** The columns `query` selects, in the order they are wanted. */
  columns: readonly Column[];
  /**
   * REAL columns. SQLite's JSON writes a REAL with 15 significant digits, which does not give
   * every double back; these travel as 17-digit text instead and are turned into numbers here.
   */
  real?: readonly Column[];
  /** The SELECT's ORDER BY again, when order matters: an aggregate's input order is otherwise unspecified. */
  orderBy?: readonly { column: Column; order: 'asc' | 'desc' }[];
}

/**
 * Wraps a SELECT of plain columns (`inner`) so SQLite hands its rows over as one JSON text
 * (`json_group_array(json_array(…))`) built on its own thread: the statement returns one row,
 * `{ rows }`, for `parseJsonRows`. node-sqlite3 otherwise turns every row into a JS object on the
 * main thread, property by property: for a 100-row inventory page that was most of the main
 * thread's time per request (`BENCH_PROFILE=1 npm run bench`, GET inventory), while `JSON.parse`
 * of the same rows is a fraction of it. Same bindings as `inner`.
 */
export function jsonRowsSql<Column extends string>(inner: string, shape: JsonRowsShape<Column>): string {
  const real = new Set<string>(shape.real ?? []);
  const values = shape.columns.map((column) =>
    real.has(column)
      ? `iif(${quoteIdentifier(column)} IS NULL, NULL, printf('%!.17g', ${quoteIdentifier(column)}))`
      : quoteIdentifier(column),
  );
  return `SELECT json_group_array(json_array(${values.join(', ')})${orderBySql(shape.orderBy ?? [])}) AS rows FROM (${inner})`;
}

/** An aggregate's ` ORDER BY …` (empty for no order): its input order is otherwise unspecified. */
export function orderBySql(orderBy: readonly { column: string; order: 'asc' | 'desc' }[]): string {
  const terms = orderBy.map(({ column, order }) => `${quoteIdentifier(column)} ${order === 'desc' ? 'DESC' : 'ASC'}`);
  return terms.length > 0 ? ` ORDER BY ${terms.join(', ')}` : '';
}

/** The rows of a `jsonRowsSql` statement's one result (`rows`), as objects keyed by column. */
export function parseJsonRows<Column extends string>(
  rows: string | undefined,
  shape: JsonRowsShape<Column>,
): Record<Column, unknown>[] {
  const real = new Set<Column>(shape.real ?? []);
  const arrays = JSON.parse(rows ?? '[]') as unknown[][];
  return arrays.map((array) => {
    const row = {} as Record<Column, unknown>;
    shape.columns.forEach((column, index) => {
      const value = array[index];
      row[column] = real.has(column) && typeof value === 'string' ? Number(value) : value;
    });
    return row;
  });
}

/**
 * Runs a Knex SELECT of plain columns on SQLite through `jsonRowsSql`, prepared once per
 * connection and reused.
 */
export async function sqliteRowsViaJson<Column extends string>(
  db: Knex | Knex.Transaction,
  query: Knex.QueryBuilder,
  shape: JsonRowsShape<Column>,
): Promise<Record<Column, unknown>[]> {
  const inner = query.toSQL().toNative();
  const [result] = await withSqliteConnection(db, (connection) =>
    allPrepared<{ rows: string }>(connection, jsonRowsSql(inner.sql, shape), inner.bindings),
  );
  return parseJsonRows(result?.rows, shape);
}
