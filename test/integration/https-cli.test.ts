import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildGateway, type ChildGateway } from '../helpers/child-gateway';

const dir = mkdtempSync(join(tmpdir(), 'gateway-https-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LINE = /^Gateway listening on (https?):\/\/127\.0\.0\.1:(\d+)\/GWENDPOINTAPI$/;

async function listeningLines(child: ChildGateway): Promise<{ scheme: string; port: number }[]> {
  for (let i = 0; i < 200 && !child.stdout().includes('https://'); i++) await new Promise((r) => setTimeout(r, 50));
  return child
    .stdout()
    .split('\n')
    .map((line) => LINE.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ scheme: match[1], port: Number(match[2]) }));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function stop(child: ChildGateway): Promise<void> {
  child.process.kill('SIGTERM');
  expect((await child.exited).code).toBe(0);
}

describe('gateway serve with HTTPS (SPEC §12)', { timeout: 120_000 }, () => {
  it('--port 0 alone: HTTP line first, then HTTPS on a free port of its own', async () => {
    const child = await startChildGateway(['--data-dir', join(dir, 'a')]);
    try {
      const lines = await listeningLines(child);
      expect(lines.map((line) => line.scheme)).toEqual(['http', 'https']);
      expect(lines[1].port).not.toBe(8443);
      expect(lines[1].port).not.toBe(lines[0].port);
      const pem = await (await fetch(`${child.base}/_tls/certificate.pem`)).text();
      expect(pem).toContain('BEGIN CERTIFICATE');
    } finally {
      await stop(child);
    }
  });

  it('--https-port N wins over the stored value', async () => {
    const port = await freePort();
    const child = await startChildGateway(['--data-dir', join(dir, 'b'), '--https-port', String(port)]);
    try {
      expect((await listeningLines(child))[1]).toEqual({ scheme: 'https', port });
    } finally {
      await stop(child);
    }
  });
});
