import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/** A Zebra SIMPLE read of serial `n` (SGTIN-96, company 0614141, item 812345). */
const zebraRead = (n: number) =>
  JSON.stringify({
    type: 'SIMPLE',
    timestamp: '2026-03-02T08:15:53.123+0000',
    data: {
      MAC: '84:24:8D:12:34:56',
      antenna: 1,
      eventNum: n,
      format: 'epc',
      idHex: `3074257BF7194E40${n.toString(16).toUpperCase().padStart(8, '0')}`,
      peakRssi: -58,
      reads: 1,
    },
  });

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
  const created = await gw.admin('POST', '/endpoints', {
    name: 'Dock',
    baseRoutePath: 'dock',
    routes: [{ name: 'reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth', async: true }],
  });
  expect(created.status).toBe(201);
});
afterAll(() => gw.close());

/**
 * Clients posting back to back for at least `ms`, and on until `enough` were acknowledged (a
 * busy machine is slower; at most `maxMs`): every answer's status counted, and the queue depth
 * (GET /status) read the moment the intake stops, before the worker can catch up.
 */
async function sustainedIntake(clients: number, ms: number, enough: number, maxMs: number) {
  const statuses = new Map<number, number>();
  let serial = 0;
  const started = performance.now();
  const going = () => {
    const elapsed = performance.now() - started;
    return elapsed < ms || (elapsed < maxMs && (statuses.get(202) ?? 0) < enough);
  };
  const client = async () => {
    while (going()) {
      const res = await fetch(`${gw.base}/dock/reads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: zebraRead(serial++),
      });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  const queued = (await gw.admin('GET', '/status')).body.queueDepth as number;
  return { acknowledged: statuses.get(202) ?? 0, statuses, queued };
}

describe('ingest load policy (SQLite)', () => {
  it('keeps processing queued events while requests keep arriving, so the queue stays short', async () => {
    const { acknowledged, statuses, queued } = await sustainedIntake(16, 3_000, 600, 15_000);
    expect([...statuses.keys()]).toEqual([202]);
    expect(acknowledged).toBeGreaterThan(500);
    // Every acknowledged event is either processed or still queued. The worker must have worked
    // off most of them *during* the intake: a policy that holds processing back while requests
    // arrive (a paced trickle, as before) leaves most of them queued here.
    const processed = acknowledged - queued;
    expect(processed / acknowledged).toBeGreaterThan(0.5);
  });
});
