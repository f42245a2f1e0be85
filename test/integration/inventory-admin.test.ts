import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

const FIXTURES = join(import.meta.dirname, '../fixtures/readers');
const epc = (n: number) => (0x300000000000000000000000n + BigInt(n)).toString(16).toUpperCase();

/**
 * Issue 40 item 5, server side: the admin reads an endpoint's live inventory through the contract
 * (`listInventory`), exactly as its UHFTagRead GET route answers it, and the decoded reads of one
 * stored event (`getEventReads`).
 */
describe('admin inventory and decoded reads (issue 40)', () => {
  let gw: TestGateway;
  let endpointId = 0;
  const eventIds: Record<string, string> = {};

  const post = async (body: string, type = 'application/json') => {
    const res = await fetch(`${gw.base}/dock3/reads`, { method: 'POST', headers: { 'content-type': type }, body });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };
  const snapshot = async (query: string) => {
    const res = await fetch(`${gw.base}/dock3/inventory${query ? `?${query}` : ''}`);
    expect(res.status).toBe(200);
    return res.json() as Promise<{ items: unknown[]; nextCursor: string | null }>;
  };

  beforeAll(async () => {
    gw = await startTestGateway();
    const created = await gw.admin('POST', '/endpoints', {
      name: 'Dock door 3',
      baseRoutePath: 'dock3',
      routes: [
        { name: 'reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth' },
        { name: 'inventory', eventType: 'UHFTagRead', requestType: 'HttpGet', authType: 'noauth' },
        { name: 'docs', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' },
      ],
    });
    expect(created.status).toBe(201);
    endpointId = created.body.id as number;
    eventIds.generic = await post(
      JSON.stringify(
        Array.from({ length: 5 }, (_, i) => ({
          epc: epc(i + 1),
          antenna: (i % 2) + 1,
          readerId: i < 3 ? 'fx-1' : 'fx-2',
          rssi: -40 - i,
          readAt: `2026-11-25T10:00:0${i}.000Z`,
        })),
      ),
    );
    eventIds.impinj = await post(readFileSync(join(FIXTURES, 'impinj-r700-webhook.json'), 'utf8'));
    eventIds.zebra = await post(readFileSync(join(FIXTURES, 'zebra-fx-concatenated.txt'), 'utf8'));
    const doc = await fetch(`${gw.base}/dock3/docs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    eventIds.allData = ((await doc.json()) as { id: string }).id;
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('answers the GET route’s snapshot, filter for filter', async () => {
    const queries = [
      '',
      'readerId=fx-1',
      'antenna=2',
      `epc=${epc(2).toLowerCase()}`,
      'epc=urn:epc:id:sgtin:0614141.812345.6789',
      // Half a byte: no tag has this EPC (and PostgreSQL cannot decode it).
      'epc=urn:epc:raw:4.xA',
      'seenSince=2026-11-25T10:00:03Z',
      'readerId=fx-2&antenna=1',
    ];
    for (const query of queries) {
      const admin = await gw.admin('GET', `/inventory?endpoint=${endpointId}${query ? `&${query}` : ''}`);
      expect(admin.status, query).toBe(200);
      expect(admin.body, query).toEqual(await snapshot(query));
    }
    const all = await gw.admin('GET', `/inventory?endpoint=${endpointId}`);
    expect(all.body.items).toHaveLength(9);
    expect(all.body.items.find((item: { epc: string }) => item.epc === '3074257BF7194E4000001A85')).toMatchObject({
      epcUri: 'urn:epc:id:sgtin:0614141.812345.6789',
      readerId: 'impinj-12-34-56',
      antenna: 1,
      rssi: -56.5,
      readCount: 1,
    });
  });

  it('pages with the route’s cursor, and bounds the page size', async () => {
    const first = await gw.admin('GET', `/inventory?endpoint=${endpointId}&limit=4`);
    expect(first.body.items).toHaveLength(4);
    expect(first.body).toEqual(await snapshot('limit=4'));
    const second = await gw.admin(
      'GET',
      `/inventory?endpoint=${endpointId}&limit=4&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect(second.body).toEqual(await snapshot(`limit=4&cursor=${encodeURIComponent(first.body.nextCursor)}`));
    const everything = await gw.admin('GET', `/inventory?endpoint=${endpointId}`);
    expect([...first.body.items, ...second.body.items]).toEqual(everything.body.items.slice(0, 8));

    const tooMany = await gw.admin('GET', `/inventory?endpoint=${endpointId}&limit=1001`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors).toEqual([{ path: '/limit', message: 'limit must be an integer from 1 to 1000' }]);
  });

  it('refuses what the route refuses, and an endpoint that is missing or unknown', async () => {
    const bad = await gw.admin('GET', `/inventory?endpoint=${endpointId}&antenna=left&epc=zz&since=2026-01-01`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/antenna', '/epc', '/since']);
    expect((await gw.admin('GET', '/inventory')).body.errors).toEqual([
      { path: '/endpoint', message: expect.stringMatching(/endpoint/) },
    ]);
    expect((await gw.admin('GET', '/inventory?endpoint=999')).status).toBe(404);
  });

  it('over the contract directly (IPC): numbers are taken as numbers', async () => {
    const page = await gw.gateway.handlers.listInventory(
      { endpoint: endpointId, antenna: 2, limit: 2 },
      { actor: 'cli' },
    );
    expect(page).toEqual(await snapshot('antenna=2&limit=2'));
  });

  it('decodes the reads of a stored UHFTagRead event as its processor does', async () => {
    const impinj = await gw.admin('GET', `/events/${eventIds.impinj}/reads`);
    expect(impinj.status).toBe(200);
    // The antennaConnected record is a status message, not a read.
    expect(impinj.body).toEqual({
      readable: true,
      total: 2,
      reads: [
        {
          epc: '3074257BF7194E4000001A85',
          epcUri: 'urn:epc:id:sgtin:0614141.812345.6789',
          tid: 'E2801170200014CD9B5A08EC',
          readerId: 'impinj-12-34-56',
          antenna: 1,
          rssi: -56.5,
          readAt: '2026-03-02T08:16:13.944Z',
        },
        expect.objectContaining({ epc: '3174257BF4499602D2000000', epcUri: 'urn:epc:id:sscc:0614141.1234567890' }),
      ],
    });
    // Zebra's objects back to back: the payload as stored is text, the reads are there all the same.
    const zebra = await gw.admin('GET', `/events/${eventIds.zebra}/reads`);
    expect(zebra.body.reads.map((r: { epcUri: string }) => r.epcUri)).toEqual([
      'urn:epc:id:grai:0614141.12345.5678',
      'urn:epc:id:giai:0614141.5678',
    ]);
    expect(zebra.body.reads[0]).toMatchObject({ antenna: 3, rssi: -55, readAt: '2026-03-02T08:15:54.001Z' });
  });

  it('says when an event is not UHFTagRead, unknown, or holds no readable reads', async () => {
    const other = await gw.admin('GET', `/events/${eventIds.allData}/reads`);
    expect(other.status).toBe(400);
    expect(other.body.errors[0].message).toMatch(/AllData, not UHFTagRead/);
    expect((await gw.admin('GET', '/events/nope/reads')).status).toBe(404);
    const rejected = await fetch(`${gw.base}/dock3/reads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"foo":1}',
    });
    expect(rejected.status).toBe(422);
    const list = await gw.admin('GET', '/events?status=rejected');
    const reads = await gw.admin('GET', `/events/${list.body.items[0].id}/reads`);
    expect(reads.body).toEqual({ reads: [], total: 0, readable: false });
  });
});
