import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestGateway, type TestGateway } from '../helpers/test-gateway';

let gw: TestGateway;

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Whether the server said `100 Continue` before answering. */
  invited: boolean;
}

/**
 * A POST through node:http, where fetch cannot go: headers as given (an empty one included), a
 * body that is Buffer bytes, or `Expect: 100-continue` with the body sent only once invited.
 */
function rawPost(path: string, headers: Record<string, string>, body: Buffer | string): Promise<RawAnswer> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const expectsContinue = headers.expect === '100-continue';
  return new Promise((resolve, reject) => {
    let invited = false;
    const req = request(`${gw.base}${path}`, {
      method: 'POST',
      headers: { 'content-length': String(bytes.length), ...headers },
    });
    req.on('continue', () => {
      invited = true;
      req.end(bytes);
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, invited }));
    });
    req.on('error', reject);
    if (expectsContinue) req.flushHeaders();
    else req.end(bytes);
  });
}

const code = (answer: RawAnswer): unknown => (JSON.parse(answer.body) as { code?: unknown }).code;

beforeAll(async () => {
  gw = await startTestGateway();
  const res = await gw.admin('POST', '/endpoints', {
    name: 'Wire',
    baseRoutePath: 'wire',
    routes: [
      { name: 'open', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' },
      { name: 'guarded', eventType: 'AllData', requestType: 'HttpPost', authType: 'basic' },
    ],
  });
  expect(res.status).toBe(201);
});
afterAll(() => gw.close());

describe('Expect: 100-continue', () => {
  const big = 'x'.repeat(64 * 1024);
  const expecting = { 'content-type': 'application/json', expect: '100-continue' };

  it('refuses before inviting the body when the answer does not need it, and closes the connection', async () => {
    for (const [path, status] of [
      ['/wire/nowhere', 404],
      ['/wire/guarded', 401],
    ] as const) {
      const answer = await rawPost(path, expecting, `{"pad":"${big}"}`);
      expect(answer.status).toBe(status);
      expect(answer.invited).toBe(false);
      expect(answer.headers.connection).toBe('close');
    }
    // /token and the admin API: a body too large or of another type is not invited either.
    const login = await rawPost('/token', expecting, JSON.stringify({ userName: 'admin', password: big }));
    expect([login.status, login.invited, code(login)]).toEqual([413, false, 'payload_too_large']);
    const bearer = `Bearer ${await gw.adminToken()}`;
    const text = await rawPost(
      '/_admin/api/roles',
      { expect: '100-continue', 'content-type': 'text/plain', authorization: bearer },
      'x',
    );
    expect([text.status, text.invited, code(text)]).toEqual([415, false, 'unsupported_media_type']);
    await gw.admin('PUT', '/settings', { bodyLimitBytes: 1024 });
    try {
      const tooLarge = await rawPost('/wire/open', expecting, `{"pad":"${big}"}`);
      expect([tooLarge.status, tooLarge.invited, code(tooLarge)]).toEqual([413, false, 'payload_too_large']);
    } finally {
      await gw.admin('PUT', '/settings', { bodyLimitBytes: 1048576 });
    }
  });

  it('invites the body of a request that may send it, on data routes, /token and the admin API', async () => {
    const data = await rawPost('/wire/open', expecting, `{"pad":"${big}"}`);
    expect([data.status, data.invited]).toEqual([200, true]);
    expect(data.headers.connection).not.toBe('close');

    const login = await rawPost('/token', expecting, JSON.stringify({ userName: 'admin', password: 'nope-nope' }));
    expect([login.status, login.invited]).toEqual([401, true]);

    const admin = await rawPost(
      '/_admin/api/roles',
      { ...expecting, authorization: `Bearer ${await gw.adminToken()}` },
      JSON.stringify({ name: 'continued' }),
    );
    expect([admin.status, admin.invited]).toEqual([201, true]);
  });
});

describe('bodies', () => {
  it('refuses a body that is not UTF-8 (it could not be stored as received) with 400 invalid_json', async () => {
    const answer = await rawPost(
      '/wire/open',
      { 'content-type': 'application/json' },
      Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    );
    expect([answer.status, code(answer)]).toEqual([400, 'invalid_json']);
    const fine = await rawPost('/wire/open', { 'content-type': 'application/json' }, '{"a":"grüße ✓"}');
    expect(fine.status).toBe(200);
  });

  it('answers an oversized /token body with 413, unread, and closes', async () => {
    const answer = await rawPost(
      '/token',
      { 'content-type': 'application/json' },
      JSON.stringify({ userName: 'admin', password: 'x', pad: 'y'.repeat(20_000) }),
    );
    expect([answer.status, code(answer)]).toEqual([413, 'payload_too_large']);
    expect(answer.headers.connection).toBe('close');
  });
});

describe('Idempotency-Key', () => {
  it('is checked after the body is parsed: a malformed body is invalid_json whatever the key', async () => {
    const answer = await rawPost(
      '/wire/open',
      { 'content-type': 'application/json', 'idempotency-key': 'k'.repeat(256) },
      '{"a":',
    );
    expect([answer.status, code(answer)]).toEqual([400, 'invalid_json']);
    const tooLong = await rawPost(
      '/wire/open',
      { 'content-type': 'application/json', 'idempotency-key': 'k'.repeat(256) },
      '{}',
    );
    expect([tooLong.status, code(tooLong)]).toEqual([400, 'invalid_idempotency_key']);
  });

  it('refuses an empty key rather than treating it as none', async () => {
    const answer = await rawPost('/wire/open', { 'content-type': 'application/json', 'idempotency-key': '' }, '{}');
    expect([answer.status, code(answer)]).toEqual([400, 'invalid_idempotency_key']);
  });
});

describe('X-Request-Id', () => {
  it('echoes any printable id the client sent, and replaces one with control characters', async () => {
    for (const id of ['trace/123 job-7', 'a'.repeat(128), '550e8400-e29b-41d4-a716-446655440000']) {
      const res = await fetch(`${gw.base}/wire/open`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': id },
        body: '{}',
      });
      expect(res.headers.get('x-request-id')).toBe(id);
      expect((await json(res)).id).toEqual(expect.any(String));
    }
    const problem = await json(await fetch(`${gw.base}/wire/nowhere`, { headers: { 'x-request-id': 'job 7/%' } }));
    expect([problem.requestId, problem.instance]).toEqual(['job 7/%', 'urn:gateway:request:job%207%2F%25']);
    const long = await fetch(`${gw.base}/wire/open`, { headers: { 'x-request-id': 'a'.repeat(129) } });
    expect(long.headers.get('x-request-id')).not.toBe('a'.repeat(129));
    const tab = await fetch(`${gw.base}/wire/open`, { headers: { 'x-request-id': 'a\tb' } });
    expect(tab.headers.get('x-request-id')).not.toBe('a\tb');
  });
});

describe('date-times without an offset', () => {
  it('are read on the gateway clock (timeZone) in payloads, snapshot filters and the event inspector alike', async () => {
    // Asia/Tokyo has no DST: local 10:00 is 01:00Z, whatever zone this process runs in.
    expect((await gw.admin('PUT', '/settings', { timeZone: 'Asia/Tokyo' })).status).toBe(200);
    const created = await gw.admin('POST', '/endpoints', {
      name: 'Clock',
      baseRoutePath: 'clock',
      routes: [
        { name: 'clockReads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth' },
        { name: 'clockView', eventType: 'UHFTagRead', requestType: 'HttpGet', authType: 'noauth' },
      ],
    });
    expect(created.status).toBe(201);
    const posted = await fetch(`${gw.base}/clock/clockReads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ epc: '3074257BF7194E4000001A85', readAt: '2026-01-01T10:00:00' }),
    });
    expect(posted.status).toBe(200);
    const page = async (query: string) => (await json(await fetch(`${gw.base}/clock/clockView${query}`))).items;
    expect(await page('')).toMatchObject([{ lastSeen: '2026-01-01T01:00:00.000Z' }]);
    expect(await page('?seenSince=2026-01-01T10:00:00')).toHaveLength(1);
    expect(await page('?seenSince=2026-01-01T10:00:01')).toHaveLength(0);
    // A date alone is the start of that day on the gateway clock (2025-12-31T15:00Z).
    expect(await page('?seenSince=2026-01-01&until=2026-01-01T10:00:00')).toHaveLength(1);
    const { id } = await json(posted);
    const since = (query: string) => gw.admin('GET', `/events?route=clockReads&since=${query}`);
    expect((await since('2026-01-01T10:00:00')).body.items.map((e: { id: string }) => e.id)).toContain(id);
    await gw.admin('PUT', '/settings', { timeZone: 'UTC' });
  });
});
