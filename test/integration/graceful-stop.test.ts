import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childAdminToken, startChildGateway, type ChildGateway } from '../helpers/child-gateway';

const dataDir = mkdtempSync(join(tmpdir(), 'gateway-stop-'));
const children: ChildGateway[] = [];
afterAll(() => {
  for (const child of children) child.process.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

type Outcome =
  | { kind: 'answered'; status: number; id?: string; connectionClose: boolean; at: number }
  /** A connection error before any byte of an answer: the client may retry. */
  | { kind: 'refused'; code: string }
  /** An answer started, then the connection broke: what a graceful stop must never do. */
  | { kind: 'broken'; code: string };

/** Posts `body`; with `holdUntil`, only its first half goes out until that promise settles. */
function send(agent: Agent, url: URL, body: string, holdUntil?: Promise<unknown>): Promise<Outcome> {
  return new Promise((resolve) => {
    let answered = false;
    const req = request({
      agent,
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ kind: 'broken', code: error.code ?? error.message }));
      res.on('aborted', () => resolve({ kind: 'broken', code: 'aborted' }));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({
          kind: 'answered',
          status: res.statusCode ?? 0,
          id: res.statusCode === 202 ? (JSON.parse(text) as { id: string }).id : undefined,
          connectionClose: res.headers.connection === 'close',
          at: Date.now(),
        });
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered) resolve({ kind: 'refused', code: error.code ?? error.message });
      else resolve({ kind: 'broken', code: error.code ?? error.message });
    });
    if (!holdUntil) return void req.end(body);
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    void holdUntil.then(() => req.end(body.slice(half)));
  });
}

/** An endpoint with one unauthenticated async route; the URL to post to. */
async function ingestRoute(child: ChildGateway): Promise<URL> {
  const token = await childAdminToken(child.base);
  const created = await fetch(`${child.base}/_admin/api/endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Stop',
      baseRoutePath: 'stop',
      routes: [{ name: 'ingest', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth', async: true }],
    }),
  });
  expect(created.status).toBe(201);
  return new URL(`${child.base}/stop/ingest`);
}

/** A raw keep-alive socket: the bytes it read, and how the gateway closed it (FIN or an error). */
function rawConnection(port: number): Promise<{ socket: Socket; read: () => string; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    const closed = new Promise<string>((settle) => {
      socket.once('end', () => settle('FIN'));
      socket.once('error', (error: NodeJS.ErrnoException) => settle(error.code ?? error.message));
    });
    socket.once('connect', () => resolve({ socket, read: () => text, closed }));
    socket.once('error', reject);
  });
}

const rawPost = (body: string) =>
  `POST /GWENDPOINTAPI/stop/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe('a graceful stop under keep-alive load (SPEC §13)', () => {
  it('20 keep-alive clients posting through SIGTERM: no reset, every 202 stored, exit within 10 s', async () => {
    const first = await startChildGateway(['--data-dir', dataDir]);
    children.push(first);
    const url = await ingestRoute(first);

    // 20 keep-alive clients post back to back until the gateway no longer takes connections.
    const outcomes: Outcome[] = [];
    const sender = async (n: number) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let i = 0; ; i++) {
          const epc = (0x300000000000000000000000n + BigInt(n * 1_000_000 + i)).toString(16);
          const outcome = await send(agent, url, JSON.stringify({ epc, antenna: 1 }));
          outcomes.push(outcome);
          if (outcome.kind !== 'answered') return;
        }
      } finally {
        agent.destroy();
      }
    };
    const senders = Array.from({ length: 20 }, (_, n) => sender(n));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // One request surely in flight when the stop begins: its headers and half its body are in,
    // the rest follows the SIGTERM. Its answer must come, saying `Connection: close`.
    let sigterm!: () => void;
    const stopping = new Promise<void>((resolve) => (sigterm = resolve));
    const heldAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const held = send(heldAgent, url, JSON.stringify({ epc: '3034257BF7194E4000000001', antenna: 2 }), stopping);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const killedAt = Date.now();
    first.process.kill('SIGTERM');
    setTimeout(sigterm, 50);
    const heldOutcome = await held;
    heldAgent.destroy();
    const exit = await first.exited;
    const exitedAfter = Date.now() - killedAt;
    await Promise.all(senders);

    outcomes.push(heldOutcome);
    const answered = outcomes.filter((outcome) => outcome.kind === 'answered');
    const failures = outcomes.flatMap((outcome) => (outcome.kind === 'answered' ? [] : [outcome.code]));
    const resets = failures.filter((code) => code !== 'ECONNREFUSED');
    console.log(
      `graceful stop: ${answered.length} answered (${answered.filter((o) => o.status === 503).length} of them 503), ` +
        `${failures.length - resets.length} refused, ${resets.length} reset (${resets.join(', ')}), exit ${exitedAfter} ms after SIGTERM`,
    );
    expect(exit.code).toBe(0);
    expect(exitedAfter).toBeLessThan(10_000);
    // A client meets an answer or a refused connection, never a reset or a hang-up.
    expect(resets).toEqual([]);
    expect(answered.length).toBeGreaterThan(50);
    // Busy keep-alive connections are not served on until the stop's deadline: each closes after
    // the answer in flight (which says `Connection: close`), and new connections are refused.
    expect(heldOutcome).toMatchObject({ kind: 'answered', status: 202, connectionClose: true });
    expect(answered.filter((outcome) => outcome.at - killedAt > 5_000)).toEqual([]);
    // A request that came after the stop began is refused with 503, never half-served.
    expect(answered.filter((outcome) => outcome.status !== 202 && outcome.status !== 503)).toEqual([]);

    // Every event answered 202 is there after a restart.
    const second = await startChildGateway(['--data-dir', dataDir]);
    children.push(second);
    const token2 = await childAdminToken(second.base);
    const accepted = answered.filter((outcome) => outcome.status === 202);
    const ids = accepted.flatMap((outcome) => (outcome.id ? [outcome.id] : []));
    expect(ids.length).toBe(accepted.length);
    const missing: string[] = [];
    for (let start = 0; start < ids.length; start += 16) {
      await Promise.all(
        ids.slice(start, start + 16).map(async (id) => {
          const res = await fetch(`${second.base}/_admin/api/events/${id}`, {
            headers: { authorization: `Bearer ${token2}` },
          });
          if (res.status !== 200) missing.push(id);
          await res.arrayBuffer();
        }),
      );
    }
    expect(missing).toEqual([]);
    second.process.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 180_000);

  it('an idle keep-alive connection ends with a FIN; a request arriving during the stop gets 503 and Connection: close', async () => {
    const child = await startChildGateway(['--data-dir', join(dataDir, 'idle')]);
    children.push(child);
    await ingestRoute(child);
    const idle = await rawConnection(child.port);
    const late = await rawConnection(child.port);
    for (const connection of [idle, late]) {
      connection.socket.write(rawPost('{"epc":"3034257BF7194E4000000002","antenna":1}'));
    }
    await expect.poll(() => idle.read().includes('\r\n\r\n') && late.read().includes('\r\n\r\n')).toBe(true);
    expect(idle.read()).toMatch(/^HTTP\/1\.1 202 /);
    expect(idle.read()).not.toMatch(/\r\nConnection: close\r\n/i);
    const answered = late.read().length;

    child.process.kill('SIGTERM');
    // The stop has begun (new connections are refused) before the next request goes out.
    await expect.poll(() => connectOutcome(child.port), { timeout: 5_000 }).toBe('ECONNREFUSED');
    late.socket.write(rawPost('{"epc":"3034257BF7194E4000000003","antenna":1}'));

    expect(await late.closed).toBe('FIN');
    const second = late.read().slice(answered);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\nConnection: close\r\n/i);
    expect(second).toContain('"code":"shutting_down"');
    expect(await idle.closed).toBe('FIN');
    expect((await child.exited).code).toBe(0);
  }, 60_000);
});

/** Whether a new connection is taken (`connected`) or refused (the error code). */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}
