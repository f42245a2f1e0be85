import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
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

describe('a graceful stop under keep-alive load (SPEC §13)', () => {
  it('closes each connection after its answer, resets no answered request, loses nothing, exits within 10 s', async () => {
    const first = await startChildGateway(['--data-dir', dataDir]);
    children.push(first);
    const token = await childAdminToken(first.base);
    const created = await fetch(`${first.base}/_admin/api/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Stop',
        baseRoutePath: 'stop',
        routes: [{ name: 'ingest', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth', async: true }],
      }),
    });
    expect(created.status).toBe(201);

    // 8 keep-alive clients post back to back until the gateway no longer takes connections.
    const url = new URL(`${first.base}/stop/ingest`);
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
    const senders = Array.from({ length: 8 }, (_, n) => sender(n));
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
    console.log(
      `graceful stop: ${answered.length} answered, ${outcomes.length - answered.length} refused before an answer, exit ${exitedAfter} ms after SIGTERM`,
    );
    expect(exit.code).toBe(0);
    expect(exitedAfter).toBeLessThan(10_000);
    expect(outcomes.filter((outcome) => outcome.kind === 'broken')).toEqual([]);
    expect(answered.length).toBeGreaterThan(50);
    // Busy keep-alive connections are not served on until the stop's deadline: each closes after
    // the answer in flight (which says `Connection: close`), and new connections are refused.
    expect(heldOutcome).toMatchObject({ kind: 'answered', status: 202, connectionClose: true });
    expect(answered.filter((outcome) => outcome.at - killedAt > 5_000)).toEqual([]);

    // Every event answered 202 is there after a restart.
    const second = await startChildGateway(['--data-dir', dataDir]);
    children.push(second);
    const token2 = await childAdminToken(second.base);
    const ids = answered.flatMap((outcome) => (outcome.status === 202 && outcome.id ? [outcome.id] : []));
    expect(ids.length).toBe(answered.length);
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
});
