import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WriteBatch } from '../../server/db/write-batch';
import type { Logger } from '../../server/logger';
import { ReaderWatch } from '../../server/services/reader-watch';
import { json, settledReceipt, startTestGateway, type TestGateway } from '../helpers/test-gateway';

/** SPEC §16 with the real Zebra and Impinj samples (test/fixtures/readers, see its README). */
const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/readers', name), 'utf8');

let gw: TestGateway;
/** The gateway's clock: real time plus `shift` (silence is tested by moving it on). */
let shift = 0;
const clock = () => Date.now() + shift;

const send = (route: string, body: string, query = '') =>
  fetch(`${gw.base}/plant/${route}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
const reader = async (id: string) => gw.admin('GET', `/readers/${encodeURIComponent(id)}`);
const zebraRead = (mac: string, epc: string, antenna: number, rssi = -60) =>
  ({
    type: 'SIMPLE',
    timestamp: new Date(clock()).toISOString(),
    data: { MAC: mac, antenna, idHex: epc, peakRssi: rssi, reads: 1, eventNum: 1, format: 'epc' },
  }) as const;
const epc = (n: number) => `3074257BF7194E40${n.toString(16).toUpperCase().padStart(8, '0')}`;

beforeAll(async () => {
  gw = await startTestGateway({ now: clock });
  const r = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    eventType: 'UHFTagRead',
    requestType: 'HttpPost',
    authType: 'noauth',
    ...extra,
  });
  const res = await gw.admin('POST', '/endpoints', {
    name: 'Plant',
    baseRoutePath: 'plant',
    routes: [
      r('tags'),
      r('tagsAsync', { async: true }),
      { name: 'inventory', eventType: 'UHFTagRead', requestType: 'HttpGet', authType: 'noauth' },
    ],
  });
  expect(res.status).toBe(201);
});
afterAll(() => gw.close());

describe('reader records from tag reads (SPEC §16)', () => {
  it('counts counted reads per reader and antenna, suppressed ones apart, with the last RSSI', async () => {
    const body = [
      zebraRead('84:24:8D:00:00:01', epc(1), 1, -50),
      zebraRead('84:24:8D:00:00:01', epc(1), 1, -51), // same EPC, antenna, time: suppressed
      zebraRead('84:24:8D:00:00:01', epc(2), 2, -62),
    ];
    const res = await send('tags', JSON.stringify(body));
    expect(res.status).toBe(200);
    expect((await json(res)).result).toEqual({ reads: 3, uniqueEpcs: 2, duplicatesSuppressed: 1 });
    const { status, body: r } = await reader('84:24:8D:00:00:01');
    expect(status).toBe(200);
    expect(r).toMatchObject({
      readerId: '84:24:8D:00:00:01',
      name: null,
      transport: 'http',
      lastSourceIp: '127.0.0.1',
      routes: ['tags'],
      state: 'online',
      silentAfterSeconds: 180,
      readsTotal: 2,
      readsLastMinute: 2,
      duplicatesSuppressedTotal: 1,
      health: null,
      alarms: [],
      lastStatus: null,
      lastStatusAt: null,
      unroutedTopics: [],
    });
    expect(r.lastReadAt).toBe(r.lastSeenAt);
    expect(r.antennas).toEqual([
      { antenna: 1, connected: null, readsTotal: 1, readsLastMinute: 1, lastReadAt: r.lastSeenAt, lastRssi: -51 },
      { antenna: 2, connected: null, readsTotal: 1, readsLastMinute: 1, lastReadAt: r.lastSeenAt, lastRssi: -62 },
    ]);
  });

  it('names the reader of a body that names none by ?readerId=, also on an async route', async () => {
    const generic = JSON.stringify([{ epc: epc(10), antenna: 3 }]);
    expect((await send('tags', generic, '?readerId=dock%2F7')).status).toBe(200);
    const queued = await send('tagsAsync', generic.replace(epc(10), epc(11)), '?readerId=dock%2F7');
    expect(queued.status).toBe(202);
    await settledReceipt(gw, queued.headers.get('location') ?? '');
    const { body: r } = await reader('dock/7');
    expect(r.readsTotal).toBe(2);
    expect(r.routes).toEqual(['tags', 'tagsAsync']);
    expect(r.antennas.map((a: { antenna: number }) => a.antenna)).toEqual([3]);
    // The inventory names it too.
    const inventory = await json(await fetch(`${gw.base}/plant/inventory?epc=${epc(10)}`));
    expect(inventory.items[0].readerId).toBe('dock/7');
  });

  it('refuses a ?readerId= that is empty or longer than 128 characters', async () => {
    for (const value of ['', 'x'.repeat(129)]) {
      const res = await send('tags', '[]', `?readerId=${value}`);
      expect(res.status).toBe(400);
      expect((await json(res)).code).toBe('invalid_query');
    }
    expect((await send('tags', '[]', `?readerId=${'x'.repeat(128)}`)).status).toBe(200);
  });

  it('takes an empty Impinj batch as a keep-alive: heard, no read', async () => {
    const res = await send('tags', '[]', '?readerId=r700-idle');
    expect((await json(res)).result).toEqual({ reads: 0, uniqueEpcs: 0, duplicatesSuppressed: 0 });
    const { body: r } = await reader('r700-idle');
    expect(r).toMatchObject({ readsTotal: 0, lastReadAt: null, state: 'online', antennas: [] });
  });
});

describe('reader status messages (SPEC §16)', () => {
  it('reads a Zebra heartbeat into health and antenna states, warnings and errors into alarms', async () => {
    const res = await send('tags', fixture('zebra-fx-management.json'), '?readerId=fx9600-dock');
    expect(res.status).toBe(200);
    expect((await json(res)).result).toEqual({ reads: 0, uniqueEpcs: 0, duplicatesSuppressed: 0 });
    const { body: r } = await reader('fx9600-dock');
    expect(r.health).toEqual({
      cpuPercent: 23,
      ramUsedPercent: 58,
      temperatureC: 41,
      ntpOffsetMs: 12,
      droppedByReader: 0,
      retainedByReader: 22,
    });
    expect(r.antennas.map((a: { antenna: number; connected: boolean }) => [a.antenna, a.connected])).toEqual([
      [1, true],
      [2, true],
      [3, false],
      [4, true],
    ]);
    expect(r.alarms).toEqual([
      { code: 'reader_error', message: 'data retention queue full', at: '2026-11-22T10:02:40.000Z' },
      { code: 'reader_warning', message: 'Antenna Disconnected on Port 3', at: '2026-11-22T10:01:05.000Z' },
    ]);
    expect(r.lastStatus).toEqual(JSON.parse(fixture('zebra-fx-management.json'))[2]);
    expect(r.lastStatusAt).toBe(r.lastSeenAt);
    expect(r).toMatchObject({ readsTotal: 0, lastReadAt: null });
    // Status messages put nothing in the inventory.
    const inventory = await json(await fetch(`${gw.base}/plant/inventory?readerId=fx9600-dock`));
    expect(inventory.items).toEqual([]);
  });

  it('sums per-data-path counters and takes the radio CPU when the system group is off', async () => {
    await send('tags', fixture('zebra-fx-heartbeat-datapaths.json'), '?readerId=fx7500-gate');
    const { body: r } = await reader('fx7500-gate');
    expect(r.health).toEqual({ cpuPercent: 7, droppedByReader: 12, retainedByReader: 27 });
    expect(r.antennas.map((a: { connected: boolean }) => a.connected)).toEqual([true, false]);
  });

  it('reads Impinj antenna, inventory status and overflow events under the hostname', async () => {
    const res = await send('tags', fixture('impinj-r700-status.json'));
    expect((await json(res)).result).toEqual({ reads: 0, uniqueEpcs: 0, duplicatesSuppressed: 0 });
    const { body: r } = await reader('impinj-14-2a-bc');
    expect(r.antennas).toEqual([
      { antenna: 2, connected: true, readsTotal: 0, readsLastMinute: 0, lastReadAt: null, lastRssi: null },
    ]);
    expect(r.health).toEqual({ inventoryStatus: 'running' });
    expect(r.alarms).toEqual([
      {
        code: 'reader_overflow',
        message: expect.stringContaining('1520') as string,
        at: '2026-11-22T10:04:00.000Z',
        eventsPurged: 1520,
      },
    ]);
  });

  it('counts the R700 webhook sample’s reads and takes its antennaConnected event as a status', async () => {
    const res = await send('tags', fixture('impinj-r700-webhook.json'));
    expect((await json(res)).result).toMatchObject({ reads: 2 });
    const { body: r } = await reader('impinj-12-34-56');
    expect(r.readsTotal).toBe(2);
    expect(r.antennas.find((a: { antenna: number }) => a.antenna === 2)).toMatchObject({
      connected: true,
      readsTotal: 1,
      lastRssi: -61.25,
    });
  });
});

describe('the readers resource (SPEC §16)', () => {
  it('lists readers sorted by readerId and answers 404 reader_not_found for an unknown one', async () => {
    const list = await gw.admin('GET', '/readers');
    expect(list.status).toBe(200);
    const ids = (list.body as { readerId: string }[]).map((r) => r.readerId);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toContain('fx9600-dock');
    const missing = await reader('nobody');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('reader_not_found');
  });

  it('renames a reader and sets its threshold; null follows the setting again; audited as readers', async () => {
    const put = await gw.admin('PUT', '/readers/fx9600-dock', { name: 'Dock door 1', silentAfterSeconds: 60 });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ readerId: 'fx9600-dock', name: 'Dock door 1', silentAfterSeconds: 60 });
    const back = await gw.admin('PUT', '/readers/fx9600-dock', { silentAfterSeconds: null });
    expect(back.body).toMatchObject({ name: 'Dock door 1', silentAfterSeconds: 180 });
    for (const bad of [
      { name: '' },
      { name: 'x'.repeat(65) },
      { silentAfterSeconds: 9 },
      { silentAfterSeconds: 86401 },
    ]) {
      const res = await gw.admin('PUT', '/readers/fx9600-dock', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    expect((await gw.admin('PUT', '/readers/nobody', { name: 'x' })).status).toBe(404);
    const audit = await gw.admin('GET', '/audit');
    expect(audit.body.items[0]).toMatchObject({ resource: 'readers', action: 'update' });
  });

  it('answers the history one entry per minute, oldest first, zeros included', async () => {
    const history = await gw.admin('GET', '/readers/84%3A24%3A8D%3A00%3A00%3A01/history');
    expect(history.status).toBe(200);
    expect(history.body).toHaveLength(60);
    const last = history.body[59];
    expect(last).toEqual({ minute: new Date(Math.floor(clock() / 60_000) * 60_000).toISOString(), reads: 2 });
    expect(history.body.slice(0, 58).every((m: { reads: number }) => m.reads === 0)).toBe(true);
    expect((await gw.admin('GET', '/readers/fx9600-dock/history?minutes=1440')).body).toHaveLength(1440);
    for (const bad of ['0', '1441', 'x']) {
      expect((await gw.admin('GET', `/readers/fx9600-dock/history?minutes=${bad}`)).status).toBe(400);
    }
    expect((await gw.admin('GET', '/readers/nobody/history')).status).toBe(404);
  });

  it('forgets a deleted reader until it is heard from again', async () => {
    expect((await gw.admin('DELETE', '/readers/r700-idle')).status).toBe(204);
    expect((await reader('r700-idle')).status).toBe(404);
    expect((await gw.admin('DELETE', '/readers/r700-idle')).status).toBe(404);
    await send('tags', '[]', '?readerId=r700-idle');
    expect((await reader('r700-idle')).body).toMatchObject({ readsTotal: 0, name: null });
  });

  it('keeps the setting readerSilentAfterSeconds within 10–86400', async () => {
    expect((await gw.admin('GET', '/settings')).body.readerSilentAfterSeconds).toBe(180);
    expect((await gw.admin('PUT', '/settings', { readerSilentAfterSeconds: 9 })).status).toBe(400);
    expect((await gw.admin('PUT', '/settings', { readerSilentAfterSeconds: 86401 })).status).toBe(400);
    expect((await gw.admin('PUT', '/settings', { readerSilentAfterSeconds: 240 })).status).toBe(200);
    expect((await reader('r700-idle')).body.silentAfterSeconds).toBe(240);
    expect((await gw.admin('PUT', '/settings', { readerSilentAfterSeconds: 180 })).status).toBe(200);
  });

  it('shows readers in /status and /_metrics', async () => {
    const status = await gw.admin('GET', '/status');
    const total = (await gw.admin('GET', '/readers')).body.length as number;
    expect(status.body.readers).toEqual({ total, online: total, silent: 0, untracked: 0 });
    const metrics = await (await fetch(`${gw.base}/_metrics`)).text();
    expect(metrics).toContain('gateway_reader_reads_total{reader="84:24:8D:00:00:01"} 2\n');
    expect(metrics).toContain('gateway_reader_online{reader="fx9600-dock"} 1\n');
    expect(metrics).toMatch(/gateway_reader_last_seen_seconds\{reader="fx9600-dock"\} \d/);
  });
});

describe('silent and back (SPEC §16)', () => {
  it('turns silent past its threshold and online when heard again, logging both', async () => {
    const lines: { level: string; message: string }[] = [];
    const capture = {
      debug: () => undefined,
      info: (message: string) => lines.push({ level: 'info', message }),
      warn: (message: string) => lines.push({ level: 'warn', message }),
      error: () => undefined,
    } as unknown as Logger;
    const watch = new ReaderWatch({ db: gw.gateway.db, logger: capture, now: clock, silentAfterSeconds: () => 180 });
    const changes: string[] = [];
    watch.onChange((change) => changes.push(`${change.readerId}:${change.state}`));
    await gw.admin('PUT', '/readers/fx7500-gate', { silentAfterSeconds: 10 });
    await watch.check();
    shift += 11_000;
    try {
      expect((await reader('fx7500-gate')).body.state).toBe('silent');
      expect((await reader('fx9600-dock')).body.state).toBe('online');
      expect((await gw.admin('GET', '/status')).body.readers).toMatchObject({ silent: 1 });
      expect(await (await fetch(`${gw.base}/_metrics`)).text()).toContain(
        'gateway_reader_online{reader="fx7500-gate"} 0\n',
      );
      await watch.check();
      expect(changes).toEqual(['fx7500-gate:silent']);
      expect(lines).toContainEqual({ level: 'warn', message: 'reader fx7500-gate turned silent' });
      expect(watch.silentCount()).toBe(1);
      await send('tags', fixture('zebra-fx-heartbeat-datapaths.json'), '?readerId=fx7500-gate');
      expect((await reader('fx7500-gate')).body.state).toBe('online');
      await watch.check();
      expect(changes).toEqual(['fx7500-gate:silent', 'fx7500-gate:online']);
      expect(lines).toContainEqual({ level: 'info', message: 'reader fx7500-gate is back' });
    } finally {
      shift -= 11_000;
    }
  });
});

describe('cost (SPEC §16)', () => {
  it('writes a batch of 500 reads from one reader with as many reader statements as one read', async () => {
    const statements = (calls: unknown[][]) =>
      calls
        .flat()
        .map((query) => (query as { toSQL(): { sql: string } }).toSQL().sql)
        .filter((sql) => /reader/.test(sql));
    const spy = vi.spyOn(WriteBatch.prototype, 'add');
    try {
      await send('tags', JSON.stringify([zebraRead('cost-reader', epc(100), 1)]));
      const one = statements(spy.mock.calls);
      spy.mockClear();
      const many = Array.from({ length: 500 }, (_, i) => zebraRead('cost-reader', epc(1000 + i), 1 + (i % 4)));
      expect((await json(await send('tags', JSON.stringify(many)))).result.reads).toBe(500);
      const batch = statements(spy.mock.calls);
      // One upsert for the reader, one for its antennas, one for its per-minute counts.
      expect(batch.filter((sql) => sql.startsWith('INSERT INTO readers '))).toHaveLength(1);
      expect(batch).toHaveLength(3);
      expect(one).toHaveLength(3);
      // The reader row is one row whatever the number of reads.
      const readerUpsert = batch.find((sql) => sql.startsWith('INSERT INTO readers ')) ?? '';
      expect(readerUpsert.match(/\),\(/g)).toBeNull();
    } finally {
      spy.mockRestore();
    }
    expect((await reader('cost-reader')).body.readsTotal).toBe(501);
  });
});

describe('the 10,000-reader bound (SPEC §16)', () => {
  it('processes reads of readers beyond 10,000 as usual but does not track them', async () => {
    const other = await startTestGateway();
    try {
      await other.admin('POST', '/endpoints', {
        name: 'Yard',
        baseRoutePath: 'yard',
        routes: [
          { name: 'yardTags', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth' },
          { name: 'yardInventory', eventType: 'UHFTagRead', requestType: 'HttpGet', authType: 'noauth' },
        ],
      });
      const at = Date.now();
      const rows = Array.from({ length: 9_999 }, (_, i) => ({
        reader_id: `bulk-${String(i).padStart(5, '0')}`,
        transport: 'http',
        last_source_ip: '10.0.0.1',
        first_seen_at: at,
        last_seen_at: at,
        reads_total: 0,
        duplicates_suppressed_total: 0,
      }));
      await other.gateway.db.knex.batchInsert('readers', rows, 500);
      const body = [
        { epc: epc(5001), readerId: 'new-a' },
        { epc: epc(5002), readerId: 'new-b' },
      ];
      const res = await fetch(`${other.base}/yard/yardTags`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect((await json(res)).result).toEqual({ reads: 2, uniqueEpcs: 2, duplicatesSuppressed: 0 });
      const status = await other.admin('GET', '/status');
      expect(status.body.readers).toMatchObject({ total: 10_000, untracked: 1 });
      expect((await other.admin('GET', '/readers/new-a')).status).toBe(200);
      expect((await other.admin('GET', '/readers/new-b')).status).toBe(404);
      // The untracked reader's read is in the inventory all the same.
      const inventory = await json(await fetch(`${other.base}/yard/yardInventory?readerId=new-b`));
      expect(inventory.items).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});
