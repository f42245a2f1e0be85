import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

let clock = Date.parse('2026-01-01T00:00:00Z');
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ now: () => clock });
  await gw.admin('PUT', '/settings', { bearerTokenTtlSeconds: 2_592_000 });
  await gw.admin('POST', '/endpoints', {
    name: 'R',
    baseRoutePath: 'r',
    routes: [
      { name: 'ghost', eventType: 'GhostData', requestType: 'HttpPost', authType: 'noauth' },
      { name: 'ghostView', eventType: 'GhostData', requestType: 'HttpGet', authType: 'noauth' },
      { name: 'all', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' },
      { name: 'epcis', eventType: 'EpcisObject', requestType: 'HttpPost', authType: 'noauth' },
    ],
  });
});
afterAll(() => gw.close());

const post = (route: string, body: unknown) =>
  fetch(`${gw.base}/r/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('retention', () => {
  it('prunes events older than retentionDays with their snapshot rows, keeping newer ones', async () => {
    await post('ghost', { T: [{ TN: 'OLD', CN: 'A', DR: [{ c: [1] }, { c: [2] }] }] });
    clock += 5 * 86_400_000;
    await post('ghost', { T: [{ TN: 'NEW', CN: 'A', DR: [{ c: [3] }] }] });
    await gw.admin('PUT', '/settings', { retentionDays: 3 });
    expect(await gw.gateway.housekeeping.runOnce()).toBe(1);
    const rows = (await (await fetch(`${gw.base}/r/ghostView`)).json()) as { items: { table: string }[] };
    expect(rows.items.map((item) => item.table)).toEqual(['NEW']);
  });

  it('keeps at most retentionMaxEvents, dropping the oldest first', async () => {
    await gw.admin('PUT', '/settings', { retentionDays: 3650, retentionMaxEvents: 1000 });
    // Fill beyond the floor of 1000 quickly through the async-free sync route.
    for (let batch = 0; batch < 11; batch++)
      await Promise.all(Array.from({ length: 100 }, (_, i) => post('all', { batch, i })));
    const before = (await gw.admin('GET', '/events?limit=1')).body.items[0].id;
    expect(await gw.gateway.housekeeping.runOnce()).toBe(101);
    const newest = (await gw.admin('GET', '/events?limit=1')).body.items[0].id;
    expect(newest).toBe(before);
    const all = (await gw.admin('GET', '/events?limit=1000')).body;
    expect(all.items).toHaveLength(1000);
    expect(all.nextCursor).toBeNull();
  });

  it('prunes a split EPCIS submission together with its events', async () => {
    const doc = readFileSync(
      join(import.meta.dirname, '../fixtures/epcis/valid/Example_9.6.1-ObjectEvent.jsonld'),
      'utf8',
    );
    const split = (await (await post('epcis', JSON.parse(doc))).json()) as {
      id: string;
      result: { eventIds: string[] };
    };
    expect(split.result.eventIds.length).toBeGreaterThan(0);
    await gw.admin('PUT', '/settings', { retentionDays: 3 });
    clock += 5 * 86_400_000;
    expect(await gw.gateway.housekeeping.runOnce()).toBe(1001); // the 1 000 kept above, and this one
    for (const id of [split.id, ...split.result.eventIds])
      expect((await gw.admin('GET', `/events/${id}`)).status).toBe(404);
  });
});
