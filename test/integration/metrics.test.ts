import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecrets } from '../helpers/secrets-fixture';
import { settledReceipt, startTestGateway, type TestGateway } from '../helpers/test-gateway';

let gw: TestGateway;

/** A scrape as `series → value`, e.g. `gateway_events_received_total{event_type="AllData",mode="sync"}` → 3. */
type Scrape = Map<string, number>;

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (\S+)$/;

/**
 * Parses the text exposition format strictly enough to catch a malformed line: every sample
 * belongs to a family announced by a HELP and a TYPE line just before it, counters end `_total`.
 */
function parseExposition(text: string): { series: Scrape; types: Map<string, string> } {
  expect(text.endsWith('\n')).toBe(true);
  const series: Scrape = new Map();
  const types = new Map<string, string>();
  const helped = new Set<string>();
  let current: string | null = null;
  for (const line of text.slice(0, -1).split('\n')) {
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*$/.exec(line);
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge)$/.exec(line);
    if (help) {
      expect(helped.has(help[1]), `one HELP for ${help[1]}`).toBe(false);
      helped.add(help[1]);
      current = help[1];
    } else if (type) {
      expect(type[1], 'TYPE follows its HELP').toBe(current);
      types.set(type[1], type[2]);
      if (type[2] === 'counter') expect(type[1]).toMatch(/_total$/);
    } else {
      const sample = SAMPLE.exec(line);
      expect(sample, `sample line: ${line}`).not.toBeNull();
      const [, name, labels = '', value] = sample!;
      expect(name, 'sample after its family header').toBe(current);
      expect(types.has(name)).toBe(true);
      expect(Number.isFinite(Number(value)), `numeric value in: ${line}`).toBe(true);
      series.set(`${name}${labels}`, Number(value));
    }
  }
  return { series, types };
}

async function scrape(target = gw): Promise<Scrape> {
  const res = await fetch(`${target.base}/_metrics`);
  expect(res.status).toBe(200);
  return parseExposition(await res.text()).series;
}

const events = (kind: string, eventType: string, mode: string) =>
  `gateway_events_${kind}_total{event_type="${eventType}",mode="${mode}"}`;

const post = (route: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.base}/plant/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

const settled = (location: string) => settledReceipt(gw, location);

beforeAll(async () => {
  gw = await startTestGateway();
  const route = (name: string, eventType: string, extra: Record<string, unknown> = {}) => ({
    name,
    eventType,
    requestType: 'HttpPost',
    authType: 'noauth',
    ...extra,
  });
  const created = await gw.admin('POST', '/endpoints', {
    name: 'Plant',
    baseRoutePath: 'plant',
    routes: [route('all', 'AllData'), route('allAsync', 'AllData', { async: true }), route('trigger', 'CustomTrigger')],
  });
  expect(created.status).toBe(201);
});
afterAll(() => gw.close());

describe('GET /_metrics', () => {
  it('answers the Prometheus text format, without credentials, with the gateway figures', async () => {
    const res = await fetch(`${gw.base}/_metrics`, { headers: { 'x-request-id': 'scrape-1' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers.get('x-request-id')).toBe('scrape-1');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { series, types } = parseExposition(await res.text());
    for (const [name, type] of Object.entries({
      gateway_info: 'gauge',
      gateway_uptime_seconds: 'gauge',
      gateway_database_up: 'gauge',
      gateway_queue_depth: 'gauge',
      gateway_events_received_last_minute: 'gauge',
      gateway_events_received_total: 'counter',
      gateway_events_processed_total: 'counter',
      gateway_events_rejected_total: 'counter',
      gateway_event_processing_errors_total: 'counter',
      gateway_group_commit_flushes_total: 'counter',
      gateway_group_commit_events_total: 'counter',
      gateway_group_commit_jobs_total: 'counter',
      gateway_http_responses_total: 'counter',
    })) {
      expect(types.get(name), name).toBe(type);
    }
    expect(series.get('gateway_database_up')).toBe(1);
    expect(
      [...series.keys()].some((key) => /^gateway_info\{version="[^"]+",database="(sqlite|postgres)"\}$/.test(key)),
    ).toBe(true);
    // Every event type's series exists from the start, at 0 until its first event.
    expect(series.get(events('received', 'GhostData', 'async'))).toBe(0);
    expect(series.get('gateway_http_responses_total{class="5xx"}')).toBe(0);
  });

  it('moves its counters with sync, rejected, async and replayed submissions', async () => {
    const before = await scrape();
    const delta = (after: Scrape, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);

    for (let i = 0; i < 3; i++) expect((await post('all', `{"n":${i}}`)).status).toBe(200);
    expect((await post('trigger', '{"trigger":"9 not a name"}')).status).toBe(422);
    const queued = await Promise.all([post('allAsync', '{"a":1}'), post('allAsync', '{"a":2}')]);
    for (const res of queued) expect(res.status).toBe(202);
    // A replay answers from the idempotency store: no new event.
    const key = { 'idempotency-key': 'metrics-once' };
    expect((await post('all', '{"once":true}', key)).status).toBe(200);
    expect((await post('all', '{"once":true}', key)).status).toBe(200);
    for (const res of queued) await settled(res.headers.get('location')!);

    const after = await scrape();
    expect(delta(after, events('received', 'AllData', 'sync'))).toBe(4);
    expect(delta(after, events('processed', 'AllData', 'sync'))).toBe(4);
    expect(delta(after, events('received', 'CustomTrigger', 'sync'))).toBe(1);
    expect(delta(after, events('rejected', 'CustomTrigger', 'sync'))).toBe(1);
    expect(delta(after, events('processed', 'CustomTrigger', 'sync'))).toBe(0);
    expect(delta(after, events('received', 'AllData', 'async'))).toBe(2);
    expect(delta(after, events('processed', 'AllData', 'async'))).toBe(2);
    expect(delta(after, events('rejected', 'AllData', 'async'))).toBe(0);
    // The rejected sync event is a group-commit insert; the two async events, processed in the
    // transaction that acknowledged them while nothing was queued (decision 0401), are store jobs.
    expect(delta(after, 'gateway_group_commit_events_total')).toBe(1);
    expect(delta(after, 'gateway_group_commit_flushes_total')).toBeGreaterThan(0);
    expect(delta(after, 'gateway_group_commit_jobs_total')).toBeGreaterThanOrEqual(3);
    expect(delta(after, 'gateway_http_responses_total{class="2xx"}')).toBeGreaterThanOrEqual(8);
    expect(delta(after, 'gateway_http_responses_total{class="4xx"}')).toBe(1);
    expect(after.get('gateway_queue_depth')).toBe(0);
    expect(after.get('gateway_events_received_last_minute')).toBeGreaterThanOrEqual(7);
  });

  it('shows the queue depth of events acknowledged and not yet processed', async () => {
    const ingestOnly = await startTestGateway({ processQueue: false });
    try {
      await ingestOnly.admin('POST', '/endpoints', {
        name: 'Dock',
        baseRoutePath: 'dock',
        routes: [{ name: 'inbox', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth', async: true }],
      });
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${ingestOnly.base}/dock/inbox`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(res.status).toBe(202);
      }
      const series = await scrape(ingestOnly);
      expect(series.get('gateway_queue_depth')).toBe(2);
      expect(series.get(events('received', 'AllData', 'async'))).toBe(2);
      expect(series.get(events('processed', 'AllData', 'async'))).toBe(0);
    } finally {
      await ingestOnly.close();
    }
  });

  it('answers HEAD without a body and refuses other methods with 405', async () => {
    const head = await fetch(`${gw.base}/_metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(head.headers.get('x-request-id')).toMatch(/.+/);
    expect(await head.text()).toBe('');
    const posted = await fetch(`${gw.base}/_metrics`, { method: 'POST' });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET');
  });

  it('carries no secret and no user name', async () => {
    const secrets = await createSecrets(gw);
    const body = await (await fetch(`${gw.base}/_metrics`)).text();
    for (const secret of secrets) expect(body, secret).not.toContain(secret);
    // The refused Basic login above was counted, as a class only.
    expect(parseExposition(body).series.get('gateway_http_responses_total{class="4xx"}')).toBeGreaterThan(0);
  });
});
