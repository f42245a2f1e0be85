import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../server/db';
import { inScriptTransaction } from '../../server/db/sqlite-transaction';
import { WriteBatch } from '../../server/db/write-batch';
import { SerializedPage, type SnapshotQuery } from '../../server/events/processor';
import { PROCESSORS } from '../../server/events/registry';
import { inventoryRepo, type InventoryRow } from '../../server/repositories/inventory.repo';
import { uriListsEpc } from '../../server/events/uhf';

let dir: string;
let file: string;
let db: Db;

const row = (n: number): InventoryRow => ({
  epc: `E${String(n).padStart(23, '0')}`,
  epcUri: `urn:epc:raw:96.x${n}`,
  tid: null,
  readerId: 'dock',
  antenna: 1,
  rssi: -50,
  firstSeen: 1_700_000_000_000 + n,
  lastSeen: 1_700_000_000_000 + n,
  readCount: 1,
});

const store = async (rows: InventoryRow[]) => {
  const writes = new WriteBatch(db.knex);
  inventoryRepo.upsert(writes, 1, rows, new Map(), uriListsEpc);
  await writes.send();
};

const epcs = (rows: InventoryRow[]) => rows.map((r) => r.epc);

/** The GET inventory page as the data plane reads it: on `db.reads`, SQLite writing the JSON. */
async function snapshotEpcs(filters: SnapshotQuery['filters'] = {}): Promise<string[]> {
  const page = await PROCESSORS.UHFTagRead.snapshot(db.reads, { endpointId: 1, limit: 10, filters });
  if (!(page instanceof SerializedPage)) throw new Error('SQLite answers the inventory as JSON text');
  return (JSON.parse(page.json) as { items: { epc: string }[] }).items.map((item) => item.epc);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-read-pool-'));
  file = join(dir, 'gateway.db');
  db = await createDb({ kind: 'sqlite', filename: file });
  await store([row(1), row(2)]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite read connections (Db.reads)', () => {
  it('are connections of their own that refuse writes', async () => {
    expect(db.reads).not.toBe(db.knex);
    await expect(db.reads('settings').insert({ key: 'probe', value: '1' })).rejects.toThrow(/readonly|read-only/i);
  });

  it('answer a page kept while nothing was written with the bytes built for it, and a new page after a write', async () => {
    // An endpoint of its own, so the other tests' pages stay as they are.
    const query: SnapshotQuery = { endpointId: 2, limit: 10, filters: {} };
    const read = () => PROCESSORS.UHFTagRead.snapshot(db.reads, query);
    const before = new Set<unknown>();
    for (let i = 0; i < 8; i++) before.add(await read());
    // One answer per read connection (2), built once each, however many requests.
    expect(before.size).toBeLessThanOrEqual(2);
    const writes = new WriteBatch(db.knex);
    inventoryRepo.upsert(writes, 2, [row(4)], new Map(), uriListsEpc);
    await writes.send();
    const after = await read();
    expect(before.has(after)).toBe(false);
    expect(after instanceof SerializedPage && after.json).toContain(row(4).epc);
  });

  it('read the last commit while the writer holds a transaction open, then see its commit', async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written = (): void => undefined;
    const inside = new Promise<void>((resolve) => (written = resolve));
    const transaction = inScriptTransaction(db.knex, async (tx) => {
      const writes = WriteBatch.onScript(tx);
      inventoryRepo.upsert(writes, 1, [row(3)], new Map(), uriListsEpc);
      await writes.send();
      await writes.read(writes.sql.raw('select 1')); // sends the write: BEGIN IMMEDIATE is held now
      written();
      await held;
    });
    await inside;
    // Both read connections at once (each prepares its statement), neither waiting for the writer.
    const [a, b] = await Promise.all([snapshotEpcs(), snapshotEpcs({ antenna: 1 })]);
    expect(a).toEqual(epcs([row(2), row(1)]));
    expect(b).toEqual(epcs([row(2), row(1)]));
    release();
    await transaction;
    expect(await snapshotEpcs()).toEqual(epcs([row(3), row(2), row(1)]));
  });

  it('close cleanly with their prepared statements (SQLite leaves no WAL file only then)', async () => {
    await db.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
  });
});
