import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRAIN_MAX_BYTES } from '../../server/http/drain-unread-body';
import { childAdminToken, startChildGateway, type ChildGateway } from '../helpers/child-gateway';

// A gateway in its own process, as a client meets it: with server and client on one event loop
// the race between the client's upload and the gateway's close plays out differently.
let gw: ChildGateway;
const dataDir = mkdtempSync(join(tmpdir(), 'gateway-refusal-'));

beforeAll(async () => {
  gw = await startChildGateway(['--data-dir', dataDir]);
  const token = await childAdminToken(gw.base);
  const endpoint = await fetch(`${gw.base}/_admin/api/endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Site',
      baseRoutePath: 'site',
      routes: [
        { name: 'open', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth', roles: [] },
        { name: 'gate', eventType: 'AllData', requestType: 'HttpPost', authType: 'basic', roles: [] },
      ],
    }),
  });
  expect(endpoint.status).toBe(201);
}, 60_000);
afterAll(async () => {
  gw.process.kill('SIGTERM');
  await gw.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

interface Outcome {
  status?: number;
  error?: string;
}

/**
 * Posts a 50 MB body with Node's http client the way an uploader does (the whole buffer handed
 * over at once) and reports what it saw: the answer's status, or the error met before any answer.
 */
function post(path: string, body: Buffer): Promise<Outcome> {
  const url = new URL(`${gw.base}${path}`);
  return new Promise((resolve) => {
    const outcome: Outcome = {};
    let answered = false;
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
    });
    req.on('response', (res) => {
      answered = true;
      outcome.status = res.statusCode;
      res.resume();
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered) outcome.error = error.code ?? error.message;
    });
    req.on('close', () => resolve(outcome));
    req.end(body);
  });
}

/**
 * A raw client that declares `declared` bytes, sends the headers and `send` bytes (as fast as
 * the server reads them), and never ends: when does the gateway cut the connection, and was
 * the answer read first?
 */
function rawPost(
  path: string,
  declared: number,
  send: number,
): Promise<{ answer: string; closedAfterMs: number; sent: number }> {
  const url = new URL(`${gw.base}${path}`);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    let sent = 0;
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    socket.on('data', (data: Buffer) => (answer += data.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started, sent }));
    socket.write(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
    );
    const pump = () => {
      while (sent < send && !socket.destroyed) {
        const part = chunk.subarray(0, Math.min(chunk.length, send - sent));
        sent += part.length;
        if (!socket.write(part)) return void socket.once('drain', pump);
      }
    };
    pump();
  });
}

describe('an early refusal (SPEC §13)', () => {
  it('reaches Node’s http client while it is still posting a 50 MB body: 20 tries, 20 answers', async () => {
    const refusals: [string, number][] = [
      ['/site/open', 413],
      ['/site/gate', 401],
      ['/nowhere/at-all', 404],
    ];
    const body = Buffer.alloc(50 * 1000 * 1000, 0x20);
    const seen: Outcome[] = [];
    const expected: Outcome[] = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      const [path, status] = refusals[attempt % refusals.length];
      seen.push(await post(path, body));
      expected.push({ status });
    }
    expect(seen).toEqual(expected);
  }, 180_000);

  it('reads a stalled body for at most 5 s: answered at once, then cut', async () => {
    const outcome = await rawPost('/site/open', 50 * 1000 * 1000, 64 * 1024);
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 [^]*\r\nContent-Length: \d+\r\n/i);
    expect(outcome.answer).toMatch(/payload_too_large/);
    // The 5 s bound, with a wide margin for a loaded machine; unbounded it would wait for ever.
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(4_000);
    expect(outcome.closedAfterMs).toBeLessThan(30_000);
  }, 60_000);

  it('reads at most 64 MiB of a refused body, then cuts the connection', async () => {
    const outcome = await rawPost('/site/open', 4 * DRAIN_MAX_BYTES, 4 * DRAIN_MAX_BYTES);
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.sent).toBeLessThan(4 * DRAIN_MAX_BYTES);
  }, 60_000);
});
