import { describe, it, expect } from 'vitest';
import { normalizeGhostData } from '../../../server/events/ghost-data';
import type { GhostRow } from '../../../server/events/ghost-data';
import { errorsOf, fixtureJson, valueOf } from './helpers';

const errors = (json: unknown) => errorsOf(normalizeGhostData(json));
const table = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  TN: 'T_USER',
  CN: 'COL_A;COL_B',
  CT: 'S;N',
  DR: [{ c: ['a', 1] }],
  ...overrides,
});
const body = (...tables: unknown[]): unknown => ({ T: tables });

describe('normalizeGhostData: valid bodies', () => {
  it('turns the fixture into one row object per data row, tables and rows in order', () => {
    expect(valueOf(normalizeGhostData(fixtureJson('ghostdata/tables.json')))).toEqual<GhostRow[]>([
      { table: 'T_LOCATION', row: { OBJECT_ID: 'LOC-1', NAME: 'Dock 4', ZONE: 'inbound' } },
      { table: 'T_LOCATION', row: { OBJECT_ID: 'LOC-2', NAME: 'Aisle 12', ZONE: 'storage' } },
      {
        table: 'T_SCAN',
        row: {
          OBJECT_ID: 'SCN-100',
          EPC: '3074257BF7194E4000001A85',
          SCANNED_AT: '2026-03-02T08:19:00Z',
          USER_ID: 'tech_anna',
        },
      },
    ]);
  });

  it('accepts every JSON scalar as a value', () => {
    const rows = valueOf(normalizeGhostData(body(table({ CN: 'S;N;B;Z', DR: [{ c: ['x', 2.5, false, null] }] }))));
    expect(rows).toEqual([{ table: 'T_USER', row: { S: 'x', N: 2.5, B: false, Z: null } }]);
  });

  it('accepts a table without CT, a table with no rows, and an empty T', () => {
    expect(valueOf(normalizeGhostData(body(table({ CT: undefined }))))).toHaveLength(1);
    expect(valueOf(normalizeGhostData(body(table({ DR: [] }))))).toEqual([]);
    expect(valueOf(normalizeGhostData({ T: [] }))).toEqual([]);
  });

  it('trims column names and keeps an odd name such as __proto__ as a plain key', () => {
    const rows = valueOf(normalizeGhostData(body(table({ CN: ' A ;__proto__', DR: [{ c: [1, 2] }] }))));
    expect(rows.map(({ row }) => Object.keys(row))).toEqual([['A', '__proto__']]);
    // Had `__proto__` been assigned, it would have replaced the prototype instead of adding a key.
    expect(rows.map(({ row }) => Object.getPrototypeOf(row) as unknown)).toEqual([Object.prototype]);
  });

  it('ignores keys the format does not define', () => {
    expect(valueOf(normalizeGhostData({ T: [table({ X: 1 })], deviceId: 'tc52' }))).toHaveLength(1);
  });
});

describe('normalizeGhostData: errors', () => {
  it('requires a JSON object with a T array', () => {
    expect(errors([])).toEqual([{ path: '', message: expect.stringMatching(/"T" array/) as string }]);
    expect(errors({})).toEqual([{ path: '/T', message: 'T (the list of tables) is required' }]);
    expect(errors({ T: {} })).toEqual([{ path: '/T', message: 'T must be an array of tables' }]);
  });

  it('requires each table to be an object', () => {
    expect(errors(body(table(), 'T_USER'))).toEqual([{ path: '/T/1', message: expect.any(String) as string }]);
  });

  it('requires TN to be a non-empty string', () => {
    expect(errors(body(table({ TN: '' })))[0]?.path).toBe('/T/0/TN');
    expect(errors(body(table({ TN: 5 })))[0]?.path).toBe('/T/0/TN');
    expect(errors(body(table({ TN: undefined })))[0]?.path).toBe('/T/0/TN');
  });

  it('requires CN to be a string of non-empty, distinct names', () => {
    expect(errors(body(table({ CN: ['COL_A', 'COL_B'] })))[0]?.path).toBe('/T/0/CN');
    expect(errors(body(table({ CN: 'COL_A;;COL_B' })))).toEqual([
      { path: '/T/0/CN', message: 'CN must not contain an empty column name' },
    ]);
    expect(errors(body(table({ CN: 'COL_A;COL_A' })))).toEqual([
      { path: '/T/0/CN', message: 'CN names column "COL_A" more than once' },
    ]);
  });

  it('requires CT to be a string when present', () => {
    expect(errors(body(table({ CT: ['S', 'N'] })))).toEqual([
      { path: '/T/0/CT', message: 'CT (the column types) must be a string when present' },
    ]);
  });

  it('requires DR to be an array', () => {
    expect(errors(body(table({ DR: undefined })))[0]?.path).toBe('/T/0/DR');
    expect(errors(body(table({ DR: { c: [] } })))[0]?.path).toBe('/T/0/DR');
  });

  it('requires each row to be {"c": [...]}', () => {
    expect(errors(body(table({ DR: [{ c: ['a', 1] }, ['a', 1]] })))).toEqual([
      { path: '/T/0/DR/1', message: 'A row must be an object {"c": [values]}' },
    ]);
  });

  it('requires exactly one value per column, saying how many it expected and got', () => {
    const rows = [{ c: ['a', 1] }, { c: ['a', 1] }, { c: ['a', 1] }, { c: ['a'] }, { c: ['a', 1, 2] }];
    expect(errors(body(table({ DR: rows })))).toEqual([
      { path: '/T/0/DR/3/c', message: 'Expected 2 values (one per column), got 1' },
      { path: '/T/0/DR/4/c', message: 'Expected 2 values (one per column), got 3' },
    ]);
  });

  it('refuses objects and arrays as values, at the value', () => {
    expect(errors(body(table({ DR: [{ c: ['a', { n: 1 }] }, { c: [[1], 2] }] })))).toEqual([
      { path: '/T/0/DR/0/c/1', message: expect.stringMatching(/JSON scalar/) as string },
      { path: '/T/0/DR/1/c/0', message: expect.stringMatching(/JSON scalar/) as string },
    ]);
  });

  it('reports the problems of every table', () => {
    expect(errors(body(table({ TN: '' }), table(), table({ CN: 'A;A' }))).map((error) => error.path)).toEqual([
      '/T/0/TN',
      '/T/2/CN',
    ]);
  });
});
