import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mqttLoad, type PublisherOptions } from '../../bench/mqtt-load';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/**
 * The bench's MQTT load generator (issue 34) against a real gateway's broker: what it counts as
 * acknowledged must be what the gateway stored, and a broker that closes the connection must show
 * up as errors, never as throughput.
 */
let gw: TestGateway;
let url: string;

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.gateway.mqtt.listen({ host: '127.0.0.1', port: 0 });
  const created = await gw.admin('POST', '/endpoints', {
    name: 'Bench',
    baseRoutePath: 'bench',
    routes: [
      {
        name: 'mqttOpen',
        eventType: 'UHFTagRead',
        requestType: 'HttpPost',
        authType: 'noauth',
        async: true,
        mqttTopic: 'bench/reads',
      },
      {
        name: 'secured',
        eventType: 'UHFTagRead',
        requestType: 'HttpPost',
        authType: 'basic',
        async: true,
        mqttTopic: 'bench/secured',
      },
    ],
  });
  expect(created.status).toBe(201);
  expect((await gw.admin('PUT', '/settings', { mqttMode: 'on' })).status).toBe(200);
  await gw.gateway.mqtt.apply();
  [url] = gw.gateway.mqtt.urls();
  expect(url).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/);
});
afterAll(() => gw.close());

/** Stored events on a route, paged through the admin events API. */
async function stored(route: string): Promise<number> {
  let count = 0;
  let cursor = '';
  do {
    const page = await gw.admin('GET', `/events?route=${route}&limit=1000&cursor=${cursor}`);
    count += page.body.items.length as number;
    cursor = page.body.nextCursor ?? '';
  } while (cursor);
  return count;
}

const options = (over: Partial<PublisherOptions> = {}): PublisherOptions => ({
  url,
  topic: 'bench/reads',
  seconds: 1,
  publishers: 4,
  window: 16,
  tagPool: 50,
  ...over,
});

describe('bench MQTT load generator', () => {
  it('counts PUBACKs for a second, and every one it counts is a stored event', async () => {
    const figures = await mqttLoad(options());
    expect(figures).toMatchObject({ generator: 'mqtt', non2xx: 0, errors: 0 });
    expect(figures.ok2xx).toBeGreaterThan(0);
    expect(figures.rps).toBeGreaterThan(0);
    // The rate counts the measured second only; the total also the messages in flight at its end.
    expect(figures.rps).toBeLessThanOrEqual(figures.ok2xx);
    expect(figures.p99).toBeGreaterThanOrEqual(figures.p50);
    const count = await stored('mqttOpen');
    expect(count).toBeGreaterThanOrEqual(figures.ok2xx);
    expect(count).toBeLessThanOrEqual(figures.ok2xx + figures.cutOff);
  }, 60_000);

  it('counts a connection the broker closes as errors, not as acknowledged messages', async () => {
    // Anonymous publishers may not publish to a basic route: the broker closes each connection
    // (and again after each reconnect; no point waiting long for acknowledgements).
    const figures = await mqttLoad(options({ topic: 'bench/secured', publishers: 2, window: 4, settleSeconds: 1 }));
    expect(figures.ok2xx).toBe(0);
    expect(figures.rps).toBe(0);
    expect(figures.errors).toBeGreaterThanOrEqual(2);
    expect(await stored('secured')).toBe(0);
  }, 60_000);
});
