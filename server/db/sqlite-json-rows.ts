import { quoteIdentifier } from './sql-literal';

export interface JsonRowsShape<Column extends string> {
  /** The columns `inner` selects, in the order they are wanted. */
  columns: readonly Column[];
  /**
   * REAL columns. SQLite's JSON writes a REAL with 15 significant digits, which does not give
   * every double back; these travel as 17-digit text instead, for the caller to turn into numbers.
   */
  real?: readonly Column[];
}

/**
 * Wraps a SELECT of plain columns (`inner`) so SQLite hands its rows over as one JSON text
 * (`json_group_array(json_array(…))`) built on its own thread: the statement returns one row,
 * `{ rows }`, an array of arrays in `shape.columns` order. node-sqlite3 otherwise turns every row
 * into a JS object on the main thread, property by property, while `JSON.parse` of the same rows
 * is a fraction of that (UHFTagRead's per-flush state read, the worker's claim; figures:
 * docs/performance.md, P06 and P23). Each
 * caller builds its rows from the arrays as object literals: generic objects keyed column by
 * column cost as much again. A REAL column arrives as text (see `real`). The rows come in no
 * particular order. Same bindings as `inner`.
 */
export function jsonRowsSql<Column extends string>(inner: string, shape: JsonRowsShape<Column>): string {
  const real = new Set<string>(shape.real ?? []);
  const values = shape.columns.map((column) =>
    real.has(column)
      ? `iif(${quoteIdentifier(column)} IS NULL, NULL, printf('%!.17g', ${quoteIdentifier(column)}))`
      : quoteIdentifier(column),
  );
  return `SELECT json_group_array(json_array(${values.join(', ')})) AS rows FROM (${inner})`;
}
