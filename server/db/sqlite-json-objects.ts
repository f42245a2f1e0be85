import type { Knex } from 'knex';
import { iso } from '../time';
import { withSqliteConnection } from './sqlite-exec';
import { readUnlessUnchanged } from './sqlite-read-cache';
import { quoteIdentifier } from './sql-literal';

/**
 * How a column becomes a JSON member: `text` a JSON string, `integer` and `real` a number,
 * `instant` (ms since the epoch) an ISO 8601 string. NULL is `null` in every kind.
 */
export type JsonFieldKind = 'text' | 'integer' | 'real' | 'instant';

export interface JsonField<Column extends string> {
  /** The member's name in the answer. */
  key: string;
  column: Column;
  kind: JsonFieldKind;
}

/** Between two objects. SQLite's JSON escapes every control character, so none occurs inside one. */
const OBJECT_SEPARATOR = '\x1e';
/** After the row count, before the objects. */
const COUNT_SEPARATOR = '\x1f';
/**
 * Around a value SQLite cannot write as JS does, which JS then writes in its place: an instant's
 * ms (SQLite's `strftime` per value cost more than it saved), or `r` and a REAL's 17 digits.
 */
const MARK = '\x01';
const REAL_MARK = 'r';

/**
 * A REAL as the shortest text that gives the same double back, as `JSON.stringify` writes it.
 * SQLite writes it when 15 significant digits round-trip and the value is where both write plain
 * decimals (the usual case: a reader's RSSI has a few digits, if any); `%g` drops trailing zeros, and no
 * two 15-digit texts can round-trip to one double, so that text is JS's. The rest is left to JS:
 * with 16 digits two texts can (a tie: SQLite rounds half up, JS to even), SQLite's 17th digit can
 * differ from the correctly rounded one, and it writes exponents where JS does not (`1e-05`, JS
 * `0.00001`). `-0` is written `0`, as `JSON.stringify` does; RSSIs are finite by validation.
 */
const realSql = (c: string) => {
  const fifteen = `printf('%.15g', ${c})`;
  return (
    `CASE WHEN ${c} IS NULL THEN 'null'` +
    // Whole numbers (many readers report whole dBm; -0 too) skip the float formatting, which is
    // SQLite's dearest part. Below 2^53 every whole number is a double, so its digits are the
    // shortest; above, JS may write fewer (2^54 + 8 is 18014398509481992, JS 18014398509481990).
    ` WHEN abs(${c}) < 9007199254740992 AND ${c} = CAST(${c} AS INTEGER) THEN CAST(${c} AS INTEGER)` +
    ` WHEN abs(${c}) >= 1e-4 AND abs(${c}) < 1e15 AND CAST(${fifteen} AS REAL) = ${c} THEN ${fifteen}` +
    ` ELSE char(1) || '${REAL_MARK}' || printf('%!.17g', ${c}) || char(1) END`
  );
};

function valueSql(kind: JsonFieldKind, column: string): string {
  const c = quoteIdentifier(column);
  switch (kind) {
    case 'text':
      return `json_quote(${c})`;
    case 'integer':
      return `ifnull(${c}, 'null')`;
    case 'real':
      return realSql(c);
    case 'instant':
      return `iif(${c} IS NULL, 'null', char(1) || ${c} || char(1))`;
  }
}

/** An aggregate's ` ORDER BY …` (empty for no order): its input order is otherwise unspecified. */
function orderBySql(orderBy: readonly { column: string; order: 'asc' | 'desc' }[]): string {
  const terms = orderBy.map(({ column, order }) => `${quoteIdentifier(column)} ${order === 'desc' ? 'DESC' : 'ASC'}`);
  return terms.length > 0 ? ` ORDER BY ${terms.join(', ')}` : '';
}

const sqlText = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Wraps a SELECT of plain columns (`inner`) so SQLite writes its rows as the JSON objects an
 * answer sends, one text for all rows: the row count, COUNT_SEPARATOR, then the objects (one
 * value, so `readUnlessUnchanged` can keep it), for `joinJsonObjects`. The page of a
 * snapshot then costs the main thread no `JSON.parse` of rows, no objects and no
 * `JSON.stringify`: on the GET inventory case those were most of its time per request (profile:
 * `BENCH_PROFILE=1 npm run bench`). Each object is one `printf` (cheaper for SQLite than a chain
 * of `||`; figures: docs/performance.md, P06). Same bindings as `inner`.
 */
export function jsonObjectsSql<Column extends string>(
  inner: string,
  fields: readonly JsonField<Column>[],
  orderBy: readonly { column: Column; order: 'asc' | 'desc' }[],
): string {
  const format = `{${fields.map(({ key }) => `${JSON.stringify(key).replaceAll('%', '%%')}:%s`).join(',')}}`;
  const object = `printf(${sqlText(format)}, ${fields.map(({ kind, column }) => valueSql(kind, column)).join(', ')})`;
  return `SELECT count(*) || char(31) || ifnull(group_concat(${object}, char(30)${orderBySql(orderBy)}), '') FROM (${inner})`;
}

/** Writes each marked value as JS does: an instant's ISO text, a REAL's shortest digits. */
function expandMarks(text: string): string {
  let out = '';
  let from = 0;
  for (let open = text.indexOf(MARK); open >= 0; open = text.indexOf(MARK, from)) {
    const close = text.indexOf(MARK, open + 1);
    if (close < 0) throw new Error('unpaired mark in SQLite JSON objects');
    const value =
      text[open + 1] === REAL_MARK
        ? String(Number(text.slice(open + 2, close)))
        : `"${iso(Number(text.slice(open + 1, close)))}"`;
    out += text.slice(from, open) + value;
    from = close + 1;
  }
  return out + text.slice(from);
}

export interface JsonObjects {
  /** The kept objects as a JSON array text. */
  json: string;
  /** The last kept object, parsed (for a keyset cursor); undefined when none was kept. */
  last: Record<string, unknown> | undefined;
  /** Whether there were more objects than kept. */
  more: boolean;
}

/**
 * The first `keep` objects of a `jsonObjectsSql` result (a page asks for one more than it shows,
 * to know whether another page follows).
 */
export function joinJsonObjects(text: string | null, keep: number): JsonObjects {
  const counted = text?.indexOf(COUNT_SEPARATOR) ?? -1;
  if (text === null || counted < 0) throw new Error('not a jsonObjectsSql result');
  const objects = text.slice(counted + 1);
  const more = Number(text.slice(0, counted)) > keep;
  let end = objects.length;
  if (more) {
    end = 0;
    for (let i = 0, at = -1; i < keep; i++) end = at = objects.indexOf(OBJECT_SEPARATOR, at + 1);
  }
  const kept = expandMarks(objects.slice(0, end));
  const last =
    kept.length > 0
      ? (JSON.parse(kept.slice(kept.lastIndexOf(OBJECT_SEPARATOR) + 1)) as Record<string, unknown>)
      : undefined;
  return { json: `[${kept.replaceAll(OBJECT_SEPARATOR, ',')}]`, last, more };
}

/**
 * Runs a Knex SELECT of plain columns on SQLite through `jsonObjectsSql`, prepared once per
 * connection; on a read-only connection an unchanged database gives the kept answer again
 * (`readUnlessUnchanged`).
 */
export async function sqliteObjectsViaJson<Column extends string>(
  db: Knex | Knex.Transaction,
  query: Knex.QueryBuilder,
  fields: readonly JsonField<Column>[],
  orderBy: readonly { column: Column; order: 'asc' | 'desc' }[],
  keep: number,
): Promise<JsonObjects> {
  const inner = query.toSQL().toNative();
  const sql = wrappedSql(inner.sql, fields, orderBy);
  return withSqliteConnection(db, (connection) =>
    readUnlessUnchanged(connection, sql, inner.bindings, (text) => joinJsonObjects(text, keep), String(keep)),
  );
}

/** `jsonObjectsSql`, kept per inner statement: a page request then builds no SQL of its own. */
function wrappedSql<Column extends string>(
  inner: string,
  fields: readonly JsonField<Column>[],
  orderBy: readonly { column: Column; order: 'asc' | 'desc' }[],
): string {
  let byInner = wrapped.get(fields);
  if (!byInner) wrapped.set(fields, (byInner = new Map<string, string>()));
  const key = `${orderBySql(orderBy)}\n${inner}`;
  let sql = byInner.get(key);
  if (sql === undefined) {
    if (byInner.size >= MAX_WRAPPED) byInner.clear();
    byInner.set(key, (sql = jsonObjectsSql(inner, fields, orderBy)));
  }
  return sql;
}

/** Per field list, the wrapped SQL of each order and inner statement. */
const wrapped = new WeakMap<readonly JsonField<string>[], Map<string, string>>();
/** Inner statements differ only by which filters are present: a few dozen at most. */
const MAX_WRAPPED = 256;
