import type { FieldError } from '../contract/errors';
import { fail, ok, pointer } from './types';
import type { Validation } from './types';

/** A GhostData cell: any JSON scalar. */
export type GhostValue = string | number | boolean | null;

/** One row of one table, as `{COLUMN: value}`. */
export interface GhostRow {
  table: string;
  row: Record<string, GhostValue>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isScalar = (value: unknown): value is GhostValue =>
  value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/**
 * Validates the mobile client's tabular form
 * `{"T":[{"TN":"T_USER","CN":"COL_A;COL_B","CT":"...","DR":[{"c":[a,b]}]}]}` and flattens it into
 * rows, tables in order, rows in order. `CT` (column type codes, never published) must be a
 * string when present and is otherwise left alone: it stays in the stored raw payload. Keys the
 * format does not define are ignored, as the client's format is not ours to narrow. Every
 * problem is reported, each at its JSON Pointer.
 */
export function normalizeGhostData(json: unknown): Validation<GhostRow[]> {
  if (!isObject(json)) return fail([{ path: '', message: 'Expected a JSON object with a "T" array of tables' }]);
  if (!Array.isArray(json.T)) {
    const message = json.T === undefined ? 'T (the list of tables) is required' : 'T must be an array of tables';
    return fail([{ path: pointer('T'), message }]);
  }
  const errors: FieldError[] = [];
  const rows: GhostRow[] = [];
  (json.T as unknown[]).forEach((table, index) => {
    rows.push(...readTable(table, pointer('T', index), errors));
  });
  return errors.length > 0 ? fail(errors) : ok(rows);
}

function readTable(table: unknown, path: string, errors: FieldError[]): GhostRow[] {
  if (!isObject(table)) {
    errors.push({ path, message: 'A table must be an object {TN, CN, CT?, DR}' });
    return [];
  }
  const before = errors.length;
  const name = table.TN;
  if (typeof name !== 'string' || name.trim().length === 0) {
    errors.push({ path: path + pointer('TN'), message: 'TN (the table name) must be a non-empty string' });
  }
  const columns = readColumns(table.CN, path + pointer('CN'), errors);
  if (table.CT !== undefined && table.CT !== null && typeof table.CT !== 'string') {
    errors.push({ path: path + pointer('CT'), message: 'CT (the column types) must be a string when present' });
  }
  if (!Array.isArray(table.DR)) {
    const message =
      table.DR === undefined ? 'DR (the rows) is required; send [] for none' : 'DR must be an array of rows';
    errors.push({ path: path + pointer('DR'), message });
    return [];
  }
  const rows: GhostRow[] = [];
  (table.DR as unknown[]).forEach((row, index) => {
    const values = readRow(row, path + pointer('DR', index), columns, errors);
    // Rows are only assembled while the table itself is sound; the body is rejected otherwise.
    if (values && columns && typeof name === 'string' && errors.length === before) {
      // fromEntries defines own properties, so a column named `__proto__` stays a plain key.
      rows.push({ table: name, row: Object.fromEntries(columns.map((column, i) => [column, values[i]])) });
    }
  });
  return rows;
}

/** `;`-separated column names, trimmed; each non-empty and distinct. Null when unusable. */
function readColumns(value: unknown, path: string, errors: FieldError[]): string[] | null {
  if (typeof value !== 'string') {
    errors.push({ path, message: 'CN (the column names) must be a string of names separated by ";"' });
    return null;
  }
  const columns = value.split(';').map((column) => column.trim());
  if (columns.some((column) => column.length === 0)) {
    errors.push({ path, message: 'CN must not contain an empty column name' });
    return null;
  }
  const seen = new Set<string>();
  for (const column of columns) {
    if (seen.has(column)) {
      errors.push({ path, message: `CN names column "${column}" more than once` });
      return null;
    }
    seen.add(column);
  }
  return columns;
}

/** A row `{"c": [...]}` with one scalar per column (checked only when the columns are known). */
function readRow(row: unknown, path: string, columns: string[] | null, errors: FieldError[]): GhostValue[] | null {
  if (!isObject(row) || !Array.isArray(row.c)) {
    errors.push({ path, message: 'A row must be an object {"c": [values]}' });
    return null;
  }
  const values = row.c as unknown[];
  const cellsPath = path + pointer('c');
  if (columns && values.length !== columns.length) {
    errors.push({
      path: cellsPath,
      message: `Expected ${String(columns.length)} values (one per column), got ${String(values.length)}`,
    });
    return null;
  }
  const before = errors.length;
  values.forEach((value, index) => {
    if (!isScalar(value)) {
      errors.push({
        path: cellsPath + pointer(index),
        message: 'A value must be a JSON scalar (string, number, boolean or null), not an object or array',
      });
    }
  });
  return errors.length === before ? (values as GhostValue[]) : null;
}
