import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db';
import { inScriptTransaction } from '../../server/db/sqlite-transaction';
import { WriteBatch } from '../../server/db/write-batch';
import { SerializedPage, type SnapshotQuery } from '../../server/events/processor';
import { PROCESSORS } from '../../server/events/registry';
import {
  dedupKey,
  inventoryRepo,
  type InventoryFilter,
  type InventoryRow,
} from '../../server/repositories/inventory.repo';
import { iso } from '../../server/time';
import { firstStatementPlan, firstStatementPlanPostgres } from '../helpers/query-plan';
import { useTestDatabase } from '../helpers/test-gateway';
import { decodeEpc, epcUriFilter, uriListsEpc } from '../../server/events/uhf';

let db: Db;

const keyOf = (row: InventoryRow) => dedupKey(row.epc, row.readerId, row.antenna);

const entry = (n: number, overrides: Partial<InventoryRow> = {}): InventoryRow => ({
  epc: `E${String(n).padStart(23, '0')}`,
  epcUri: `urn:epc:raw:96.x${n}`,
  tid: n % 2 ? `T${n}` : null,
  readerId: "dock 'one'",
  antenna: n % 3 ? n % 4 : null,
  rssi: n % 5 ? -50.5 : null,
  firstSeen: 1_700_000_000_000 + n,
  lastSeen: 1_700_000_100_000 + n,
  readCount: n,
  ...overrides,
});

useTestDatabase('gateway-inventory-', (opened) => (db = opened));

beforeAll(async () => {
  const writes = new WriteBatch(db.knex);
  const rows = Array.from({ length: 700 }, (_, n) => entry(n));
  inventoryRepo.upsert(
    writes,
    1,
    rows,
    new Map(rows.map((row, n) => [keyOf(row), 1_700_000_000_000 + n])),
    uriListsEpc,
  );
  // Another endpoint's rows with the same EPCs must not leak in.
  inventoryRepo.upsert(writes, 2, [entry(1, { readCount: 999 })], new Map([[keyOf(entry(1)), 5]]), uriListsEpc);
  await writes.send();
});

/** loadState through a batch on a Knex connection, and on SQLite through a script transaction too. */
const readers: [string, <T>(use: (tx: WriteBatch) => Promise<T>) => Promise<T>][] = [
  ['a Knex batch', (use) => use(new WriteBatch(db.knex))],
  [
    'a script transaction (SQLite)',
    (use) =>
      db.kind === 'sqlite'
        ? inScriptTransaction(db.knex, (tx) => use(WriteBatch.onScript(tx)))
        : use(new WriteBatch(db.knex)),
  ],
];

describe.each(readers)('inventoryRepo.loadState through %s', (_, withBatch) => {
  it('reads the inventory rows and dedup times of the asked EPCs, of that endpoint only', async () => {
    const wanted = [entry(1), entry(2), entry(3), entry(10)];
    const epcs = [...wanted.map((row) => row.epc), 'E-unknown'];
    const keys = wanted.map(keyOf);
    const state = await withBatch((tx) => inventoryRepo.loadState(tx, 1, epcs));
    const byEpc = (rows: InventoryRow[]) => [...rows].sort((a, b) => a.epc.localeCompare(b.epc));
    expect(byEpc(state.inventory)).toEqual(byEpc(wanted));
    expect(state.lastCounted).toEqual(
      new Map(wanted.map((row, i) => [keys[i], 1_700_000_000_000 + Number(row.epc.slice(1))])),
    );
    expect(state.lastCounted.get(keyOf(entry(10)))).toBe(1_700_000_000_010);
  });

  it('handles empty lists, and lists longer than one statement takes (of different lengths)', async () => {
    expect(await withBatch((tx) => inventoryRepo.loadState(tx, 1, []))).toEqual({
      inventory: [],
      lastCounted: new Map(),
    });
    const many = Array.from({ length: 650 }, (_, n) => entry(n));
    const state = await withBatch((tx) =>
      inventoryRepo.loadState(
        tx,
        1,
        many.map((row) => row.epc),
      ),
    );
    expect(state.inventory).toHaveLength(650);
    expect(state.inventory.find((row) => row.epc === entry(649).epc)).toEqual(entry(649));
    expect(state.lastCounted.size).toBe(650);
  });
});

describe('dedup reference times kept with their EPC (issue 37.6)', () => {
  const tag = entry(900, { readerId: 'dock "one" ☃', antenna: 0 });
  const plain = entry(901);
  // Every reader antenna that counted the tag: the row's own, another antenna of the same
  // reader, the same antenna number on another reader, and no antenna at all.
  const times = new Map([
    [keyOf(tag), 1_700_000_000_900],
    [dedupKey(tag.epc, tag.readerId, 1), 1_700_000_000_901],
    [dedupKey(tag.epc, 'dock 2', 0), 1_700_000_000_902],
    [dedupKey(tag.epc, tag.readerId, null), 1_700_000_000_903],
    [keyOf(plain), 1_700_000_000_904],
  ]);

  it.each(readers)(
    'gives back every time by its dedup key through %s, after the row moves to another reader too',
    async (_, withBatch) => {
      const writes = new WriteBatch(db.knex);
      inventoryRepo.upsert(writes, 5, [tag, plain], times, uriListsEpc);
      await writes.send();
      const state = await withBatch((tx) => inventoryRepo.loadState(tx, 5, [tag.epc, plain.epc]));
      expect(state.lastCounted).toEqual(times);

      // The latest read came from another antenna: the row's own time is now that antenna's.
      const moved = { ...tag, antenna: null };
      const later = new Map([...times, [dedupKey(tag.epc, 'dock 3', 4), 1_700_000_000_905]]);
      const again = new WriteBatch(db.knex);
      inventoryRepo.upsert(again, 5, [moved], later, uriListsEpc);
      await again.send();
      const reread = await withBatch((tx) => inventoryRepo.loadState(tx, 5, [tag.epc, plain.epc]));
      expect(reread.lastCounted).toEqual(later);
      expect(reread.inventory.find((row) => row.epc === tag.epc)).toEqual(moved);
      // Another endpoint's row of the same EPC has its own times.
      expect((await withBatch((tx) => inventoryRepo.loadState(tx, 2, [entry(1).epc]))).lastCounted).toEqual(
        new Map([[keyOf(entry(1)), 5]]),
      );
    },
  );
});

describe('inventoryRepo.page', () => {
  // Rows sharing one lastSeen (two reads of one post do), with values that test the transport:
  // REALs needing all 17 digits, text JSON must escape, NULLs.
  const ties = Array.from({ length: 30 }, (_, n) =>
    entry(n, {
      epc: `F${String(29 - n).padStart(23, '0')}`,
      readerId: `dock "two" \\ ☃ ${n}`,
      rssi: n % 3 === 0 ? null : -55 - 1 / 3 - n / 7,
      lastSeen: 1_700_000_100_005,
    }),
  );
  const newestFirst = (rows: InventoryRow[]) =>
    [...rows].sort((a, b) => b.lastSeen - a.lastSeen || (a.epc < b.epc ? 1 : a.epc > b.epc ? -1 : 0));
  let all: InventoryRow[];

  beforeAll(async () => {
    const writes = new WriteBatch(db.knex);
    inventoryRepo.upsert(
      writes,
      3,
      [...Array.from({ length: 200 }, (_, n) => entry(n)), ...ties],
      new Map(),
      uriListsEpc,
    );
    await writes.send();
    all = newestFirst([...Array.from({ length: 200 }, (_, n) => entry(n)), ...ties]);
  });

  it('pages newest first, ties by EPC descending, with the keyset cursor, and gives every value back exactly', async () => {
    const pages: InventoryRow[][] = [];
    let after: { lastSeen: number; epc: string } | undefined;
    for (;;) {
      const page = await inventoryRepo.page(db.knex, { endpointId: 3, limit: 17, after });
      if (page.length === 0) break;
      pages.push(page);
      const last = page[page.length - 1];
      if (!last) break;
      after = { lastSeen: last.lastSeen, epc: last.epc };
    }
    expect(pages.length).toBe(Math.ceil(all.length / 17));
    expect(pages.flat()).toEqual(all);
    expect(pages.flat().find((row) => row.epc === ties[1]?.epc)?.rssi).toBe(-55 - 1 / 3 - 1 / 7);
  });

  it.each(readers)('loadState through %s gives these rows back exactly too', async (_, withBatch) => {
    const state = await withBatch((tx) =>
      inventoryRepo.loadState(
        tx,
        3,
        ties.map((row) => row.epc),
      ),
    );
    expect(newestFirst(state.inventory)).toEqual(newestFirst(ties));
  });

  it('filters by reader, antenna, EPC and lastSeen bounds, and answers an empty page', async () => {
    const page = (filter: Partial<InventoryFilter>) =>
      inventoryRepo.page(db.knex, { endpointId: 3, limit: 500, ...filter });
    expect(await page({ readerId: ties[4]?.readerId })).toEqual([ties[4]]);
    expect(await page({ antenna: 2 })).toEqual(all.filter((row) => row.antenna === 2));
    expect(await page({ epc: entry(7).epc })).toEqual([entry(7)]);
    expect(await page({ from: entry(190).lastSeen, to: entry(195).lastSeen })).toEqual(
      all.filter((row) => row.lastSeen >= entry(190).lastSeen && row.lastSeen <= entry(195).lastSeen),
    );
    expect(await page({ endpointId: 99 })).toEqual([]);
    expect(await page({ epcUri: epcUriFilter(entry(7).epcUri) })).toEqual(
      all.filter((row) => row.epcUri === entry(7).epcUri),
    );
  });

  it.runIf(process.env.GATEWAY_TEST_DATABASE === 'postgres')(
    'reads a page from the page index on PostgreSQL',
    async () => {
      await db.knex.raw('ANALYZE tag_inventory');
      const page = await firstStatementPlanPostgres(db.knex, () =>
        inventoryRepo.page(db.knex, { endpointId: 3, limit: 17 }),
      );
      expect(page).toContain('Index Scan Backward using tag_inventory_page_idx');
    },
  );

  it.runIf(process.env.GATEWAY_TEST_DATABASE !== 'postgres')(
    'reads a page, and the page after a cursor, from the page index in page order on SQLite',
    async () => {
      for (const after of [undefined, { lastSeen: entry(100).lastSeen, epc: entry(100).epc }]) {
        const { plan } = await firstStatementPlan(db.knex, () =>
          inventoryRepo.page(db.knex, { endpointId: 3, limit: 17, after }),
        );
        expect(plan).toContain('tag_inventory_page_idx');
        // The index holds no EPC: only the rows of one lastSeen are sorted, never the whole inventory.
        expect(plan.replace('USE TEMP B-TREE FOR LAST TERM OF ORDER BY', '')).not.toContain('TEMP B-TREE');
      }
    },
  );
});

describe('the EPC URI filter (issue 37: most rows found by their EPC, the rest by the URI hash)', () => {
  const sgtin = 'urn:epc:id:sgtin:0614141.812345.6789';
  const tag = (epc: string, lastSeen: number): InventoryRow => ({ ...entry(0), epc, epcUri: decodeEpc(epc), lastSeen });
  // One SGTIN as SGTIN-96 with two filter values and as SGTIN-198 (which carries the hash), an
  // SSCC, an SGTIN-96 whose company prefix is past its digits, a raw EPC; 600 other SGTINs.
  const rows = [
    tag('3074257BF7194E4000001A85', 1_700_000_300_003),
    tag('3034257BF7194E4000001A85', 1_700_000_300_001),
    tag('3674257BF7194E5B3770E40000000000000000000000000000', 1_700_000_300_002),
    tag('3174257BF4499602D2000000', 1_700_000_300_004),
    tag('3003FFFFFFFFFFFFFFFFFFFF', 1_700_000_300_005),
    tag('E2801160600002084E3B2F1F', 1_700_000_300_006),
    ...Array.from({ length: 600 }, (_, n) =>
      tag(`3074257BF7194E40${String(n).padStart(8, '0')}`, 1_700_000_200_000 + n),
    ),
  ];
  const hashedEpcs = [rows[2], rows[3], rows[4]].map((row) => row?.epc);
  const byUri = (uri: string, limit = 500) =>
    inventoryRepo.page(db.knex, { endpointId: 6, limit, epcUri: epcUriFilter(uri) });

  beforeAll(async () => {
    const writes = new WriteBatch(db.knex);
    inventoryRepo.upsert(writes, 6, rows, new Map(), uriListsEpc);
    await writes.send();
    if (db.kind === 'postgres') await db.knex.raw('ANALYZE tag_inventory');
  });

  it('finds every row of a URI however it is encoded, newest first, and no other', async () => {
    expect(decodeEpc(rows[2]?.epc ?? '')).toBe(sgtin);
    expect(await byUri(sgtin)).toEqual([rows[0], rows[2], rows[1]]);
    expect(await byUri(sgtin, 2)).toEqual([rows[0], rows[2]]);
    for (const row of rows.slice(3)) expect(await byUri(row.epcUri), row.epc).toEqual([row]);
    expect(await byUri('urn:epc:id:sgtin:0614141.812345.6790')).toEqual([]);
    // The same URI on another endpoint finds nothing here.
    expect(await inventoryRepo.page(db.knex, { endpointId: 7, limit: 5, epcUri: epcUriFilter(sgtin) })).toEqual([]);
  });

  it('stores the URI hash only on the rows the URI does not list', async () => {
    const stored = await db
      .knex('tag_inventory')
      .where('endpoint_id', 6)
      .whereNotNull('epc_uri_hash')
      .select<{ epc: string }[]>(
        db.knex.raw(db.kind === 'sqlite' ? 'hex(epc) as epc' : "upper(encode(epc, 'hex')) as epc"),
      );
    expect(stored.map((row) => row.epc).sort()).toEqual([...hashedEpcs].sort());
  });

  it.runIf(process.env.GATEWAY_TEST_DATABASE !== 'postgres')(
    'looks the listed EPCs up by key and the rest in the hash index on SQLite, never scanning the page index',
    async () => {
      const { plan } = await firstStatementPlan(db.knex, () => byUri(sgtin));
      expect(plan).toContain('tag_inventory_uri_hash_idx (endpoint_id=? AND epc_uri_hash=?)');
      expect(plan).not.toContain('tag_inventory_page_idx');
    },
  );

  it.runIf(process.env.GATEWAY_TEST_DATABASE === 'postgres')(
    'looks the listed EPCs up by key and the rest in the hash index on PostgreSQL, at a size where scans cost',
    async () => {
      // 50,000 more rows on the endpoint: below a few thousand a scan is cheapest, and chosen.
      await db.knex.raw(
        `INSERT INTO tag_inventory (endpoint_id, epc, epc_uri, reader_id, first_seen, last_seen, read_count)
         SELECT 6, decode(lpad(to_hex(n), 24, '0'), 'hex'), 'urn:epc:raw:96.x' || lpad(to_hex(n), 24, '0'), 'r', n, n, 1
           FROM generate_series(1, 50000) AS n`,
      );
      await db.knex.raw('ANALYZE tag_inventory');
      const plan = await firstStatementPlanPostgres(db.knex, () => byUri(sgtin));
      expect(plan).toContain('Index Scan using tag_inventory_pkey on tag_inventory');
      expect(plan).toContain('Index Scan using tag_inventory_uri_hash_idx on tag_inventory hashed');
      expect(plan).not.toMatch(/Seq Scan on tag_inventory|tag_inventory_page_idx/);
      expect(await byUri(sgtin)).toEqual([rows[0], rows[2], rows[1]]);
    },
  );
});

describe('the UHFTagRead snapshot (GET inventory)', () => {
  // Endpoint 3's rows from 'inventoryRepo.page' above (ties, escapes, 17-digit RSSIs, NULLs), plus
  // text that JSON must escape in every way it can.
  const odd = [
    entry(500, { readerId: 'tab\there\nnew \u0001\u001f\u007f 📦 é', tid: 'T"\\/', lastSeen: 1_700_000_200_000 }),
    entry(501, { rssi: 0, antenna: 0, readCount: 0, lastSeen: 1_700_000_200_001 }),
  ];
  const snapshot = async (query: Partial<SnapshotQuery>) => {
    const page = await PROCESSORS.UHFTagRead.snapshot(db.reads, { endpointId: 4, limit: 100, filters: {}, ...query });
    return page instanceof SerializedPage ? page.json : JSON.stringify(page);
  };
  const item = (row: InventoryRow) => ({
    epc: row.epc,
    epcUri: row.epcUri,
    tid: row.tid,
    readerId: row.readerId,
    antenna: row.antenna,
    rssi: row.rssi,
    firstSeen: iso(row.firstSeen),
    lastSeen: iso(row.lastSeen),
    readCount: row.readCount,
  });
  let all: InventoryRow[];

  beforeAll(async () => {
    const rows = [
      ...Array.from({ length: 60 }, (_, n) => entry(n)),
      ...Array.from({ length: 20 }, (_, n) =>
        entry(100 + n, { rssi: -55 - 1 / 3 - n / 7, lastSeen: 1_700_000_100_005, readerId: `dock "two" \\ ☃ ${n}` }),
      ),
      ...odd,
    ];
    const writes = new WriteBatch(db.knex);
    inventoryRepo.upsert(writes, 4, rows, new Map(), uriListsEpc);
    await writes.send();
    all = rows.sort((a, b) => b.lastSeen - a.lastSeen || (a.epc < b.epc ? 1 : a.epc > b.epc ? -1 : 0));
  });

  it('answers every page as exactly the JSON.stringify text of its items, and its cursor leads through all rows', async () => {
    const items: unknown[] = [];
    let cursor: string | undefined;
    for (let pages = 1; ; pages++) {
      const text = await snapshot({ limit: 7, cursor });
      const page = JSON.parse(text) as { items: unknown[]; nextCursor: string | null };
      // Byte for byte what JSON.stringify writes: member order, escapes, number forms.
      expect(text).toBe(JSON.stringify(page));
      expect(page.items).toEqual(all.slice(items.length, items.length + 7).map(item));
      items.push(...page.items);
      if (page.nextCursor === null) break;
      expect(pages).toBeLessThan(20);
      cursor = page.nextCursor;
    }
    expect(items).toEqual(all.map(item));
  });

  it('takes back cursors it wrote, not one whose EPC is not whole bytes of hex (the inventory compares bytes)', () => {
    const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const isCursor = (text: string) => PROCESSORS.UHFTagRead.isCursor?.(text);
    expect(isCursor(cursor([1_700_000_000_000, '3074257BF7194E4000001A85']))).toBe(true);
    expect(isCursor(cursor([1_700_000_000_000, '3074257bf7194e4000001a85']))).toBe(true);
    expect(isCursor(cursor([1_700_000_000_000, 'not hex']))).toBe(false);
    expect(isCursor(cursor([1_700_000_000_000, 'ABC']))).toBe(false);
    expect(isCursor(cursor([1_700_000_000_000, '']))).toBe(false);
  });

  it('a page that holds exactly the last rows has no next cursor, and an empty one is empty', async () => {
    expect(JSON.parse(await snapshot({ limit: all.length }))).toEqual({ items: all.map(item), nextCursor: null });
    expect(await snapshot({ endpointId: 99 })).toBe('{"items":[],"nextCursor":null}');
    expect(await snapshot({ filters: { readerId: odd[0]?.readerId ?? '' } })).toBe(
      JSON.stringify({ items: [item(odd[0])], nextCursor: null }),
    );
  });
});
