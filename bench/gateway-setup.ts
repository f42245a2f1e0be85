import { ADMIN_PASSWORD } from './children';

/** Group-commit counters from `GET /_health` (see server/intake/commit/group-commit.ts). */
export interface CommitStats {
  flushes: number;
  events: number;
  jobs: number;
}

/** Route names on the one bench endpoint (base path `bench`), one per case. */
export const ROUTES = {
  asyncOpen: 'asyncOpen',
  asyncOpenDistinct: 'asyncOpenDistinct',
  syncTagsDistinct: 'syncTagsDistinct',
  sustained: 'sustained',
  asyncToken: 'asyncToken',
  asyncBasic: 'asyncBasic',
  syncTags: 'syncTags',
  syncAll: 'syncAll',
  inventory: 'inventory',
  mqttOpen: 'mqttOpen',
  asyncBatch: 'asyncBatch',
  syncBatch: 'syncBatch',
} as const;

/** The MQTT case's topic: the filter of the `mqttOpen` route. */
export const MQTT_TOPIC = 'bench/reads';

export interface GatewaySetup {
  /** `Authorization` values for the protected cases. */
  accessToken: string;
  basic: string;
}

/** A small admin-API client: the bench configures the gateway exactly as a technician would. */
export class AdminClient {
  private bearer = '';

  constructor(readonly base: string) {}

  async login(): Promise<void> {
    const res = await fetch(`${this.base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'admin', password: ADMIN_PASSWORD }),
    });
    if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${await res.text()}`);
    this.bearer = ((await res.json()) as { access_token: string }).access_token;
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.base}/_admin/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  /** Counters since the gateway started; read without auth, like any health probe. */
  async commitStats(): Promise<CommitStats> {
    const res = await fetch(`${this.base}/_health`);
    const body = (await res.json()) as { commit?: CommitStats };
    if (!body.commit) throw new Error('/_health has no `commit` counters (server/gateway.ts health())');
    return body.commit;
  }

  /** `/_metrics` (no auth), parsed: sums per metric name over its labels. */
  async metrics(): Promise<Record<string, number>> {
    const res = await fetch(`${this.base}/_metrics`);
    if (res.status !== 200) throw new Error(`/_metrics → ${res.status}`);
    return sumMetrics(await res.text());
  }

  /**
   * The broker's `mqtt://host:port` from `/status` listenUrls, once it listens: `mqttMode` takes
   * effect without a restart but not within the settings call, and a broker turned on after start
   * prints no listening line.
   */
  async mqttUrl(timeoutMs = 10_000): Promise<string> {
    const started = Date.now();
    for (;;) {
      const status = await this.call<{ listenUrls: string[] }>('GET', '/status');
      const url = status.listenUrls.find((u) => u.startsWith('mqtt://'));
      if (url) return url;
      if (Date.now() - started > timeoutMs) throw new Error(`no mqtt:// listener after ${timeoutMs} ms (mqttMode on?)`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Waits until the worker has processed everything acknowledged; returns how long it took. */
  async waitForDrain(timeoutMs = 300_000): Promise<number> {
    const started = Date.now();
    for (;;) {
      const status = await this.call<{ queueDepth: number }>('GET', '/status');
      if (status.queueDepth === 0) return Date.now() - started;
      if (Date.now() - started > timeoutMs)
        throw new Error(`queue still ${status.queueDepth} deep after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /**
   * Stored submissions on a route, by status. The admin events API is the public way to see what
   * was stored; paging it 1000 at a time walks the id index, so it stays linear.
   */
  async countEvents(route: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    let cursor = '';
    do {
      const query = new URLSearchParams({ route, limit: '1000', cursor });
      const page = await this.call<{ items: { status: string }[]; nextCursor: string | null }>(
        'GET',
        `/events?${query.toString()}`,
      );
      for (const item of page.items) counts[item.status] = (counts[item.status] ?? 0) + 1;
      cursor = page.nextCursor ?? '';
    } while (cursor);
    return counts;
  }
}

/** The queue cap the bench sets (see `configureGateway`). */
export const BENCH_MAX_QUEUE_DEPTH = 10_000_000;

const route = (name: string, eventType: string, extra: Record<string, unknown> = {}) => ({
  name,
  eventType,
  requestType: 'HttpPost',
  authType: 'noauth',
  async: false,
  roles: [],
  ...extra,
});

/**
 * One endpoint with a route per case, a role for the OAuth2 route, an access token in that role
 * and an external user on the basic route. The async routes take UHFTagRead, so the background
 * worker does the real decode + dedup + inventory work while the load runs, as on a site.
 */
export async function configureGateway(
  admin: AdminClient,
  options: { raiseQueueCap: boolean; settings?: Record<string, unknown> } = { raiseQueueCap: true },
): Promise<GatewaySetup> {
  // The burst cases raise the queue cap so that a run measures intake, never the cap (which is
  // tested, not benchmarked; see docs/decisions/0213-bench-raises-queue-cap.md). The sustained case keeps the default cap:
  // what a site gets when intake outruns processing.
  const settings = { ...(options.raiseQueueCap ? { maxQueueDepth: BENCH_MAX_QUEUE_DEPTH } : {}), ...options.settings };
  if (Object.keys(settings).length > 0) await admin.call('PUT', '/settings', settings);
  await admin.call('POST', '/roles', { name: 'bench', description: 'npm run bench' });
  await admin.call('POST', '/endpoints', {
    name: 'Bench',
    baseRoutePath: 'bench',
    active: true,
    routes: [
      route(ROUTES.asyncOpen, 'UHFTagRead', { async: true }),
      // The distinct-tag cases and the sustained case get routes of their own, so each case's
      // stored events can be counted by route.
      route(ROUTES.asyncOpenDistinct, 'UHFTagRead', { async: true }),
      route(ROUTES.syncTagsDistinct, 'UHFTagRead'),
      route(ROUTES.sustained, 'UHFTagRead', { async: true }),
      route(ROUTES.asyncToken, 'UHFTagRead', { async: true, authType: 'OAuth2', roles: ['bench'] }),
      route(ROUTES.asyncBasic, 'UHFTagRead', { async: true, authType: 'basic' }),
      route(ROUTES.syncTags, 'UHFTagRead'),
      route(ROUTES.syncAll, 'AllData'),
      route(ROUTES.inventory, 'UHFTagRead', { requestType: 'HttpGet' }),
      // The MQTT case publishes to it (an HttpPost route, so it takes a topic; SPEC §15).
      route(ROUTES.mqttOpen, 'UHFTagRead', { async: true, mqttTopic: MQTT_TOPIC }),
      route(ROUTES.asyncBatch, 'UHFTagRead', { async: true }),
      route(ROUTES.syncBatch, 'UHFTagRead'),
    ],
  });
  const username = 'benchreader';
  const password = 'bench-reader-password';
  await admin.call('POST', '/external-users', {
    firstName: 'Bench',
    lastName: 'Reader',
    username,
    password,
    routes: [ROUTES.asyncBasic],
  });
  const token = await admin.call<{ token: string }>('POST', '/access-tokens', {
    name: 'bench-token',
    role: 'bench',
    expiryDate: '2999-12-31',
    description: 'npm run bench',
  });
  return {
    accessToken: token.token,
    basic: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
  };
}

/**
 * Prometheus text format → the sum of each metric's samples over its labels (e.g. every event
 * type's `gateway_events_processed_total`). Comments and malformed lines are skipped.
 */
export function sumMetrics(text: string): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)/.exec(line);
    if (!match?.[1] || match[3] === undefined) continue;
    const value = Number(match[3]);
    if (Number.isFinite(value)) sums[match[1]] = (sums[match[1]] ?? 0) + value;
  }
  return sums;
}
