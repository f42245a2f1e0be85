import { mkdtempSync, rmSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import type { Middleware } from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../server/logger';
import { startGateway, type StartedGateway } from '../../server/start-gateway';
import { ADMIN_PASSWORD } from '../helpers/test-gateway';

// Issue 38, items 4 and 9: the HTTP→HTTPS redirect names only allowed hosts and the path, a
// duplicate Host is refused, the TLS listener offers only AEAD ECDHE suites, and the admin sends
// HSTS over HTTPS when tlsMode is `on`.

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Sends `request` as written (so duplicate headers and absolute-form targets reach the wire). */
function raw(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = new Map(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.write(request);
  });
}

const get = (target: string, ...headers: string[]) =>
  [`GET ${target} HTTP/1.1`, ...headers, 'Connection: close', '', ''].join('\r\n');

/** The cipher a TLS handshake with `options` settles on; rejects when the server refuses it. */
function handshake(port: number, options: ConnectionOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectTls({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options }, () => {
      const cipher = socket.getCipher().name;
      socket.destroy();
      resolve(cipher);
    });
    socket.on('error', reject);
  });
}

/** A stand-in for the built renderer: the web admin's page. */
const adminAssets: Middleware = (ctx) => {
  ctx.type = 'html';
  ctx.body = '<!doctype html><title>admin</title>';
  return Promise.resolve();
};

let dataDir: string;
let gw: StartedGateway;
let httpPort: number;
let httpsPort: number;

async function start(): Promise<void> {
  gw = await startGateway({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    adminPassword: ADMIN_PASSWORD,
    adminAssets,
    logger: silentLogger,
  });
  httpPort = gw.server.port;
  httpsPort = gw.https?.port ?? 0;
}

/** GET over HTTPS (certificate not checked: the subject here is what the server sends). */
async function httpsHeaders(path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: httpsPort, path, headers, rejectUnauthorized: false, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: new Map(Object.entries(res.headers).map(([name, value]) => [name, String(value)])),
            body,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function adminToken(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${httpPort}/GWENDPOINTAPI/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: 'admin', password: ADMIN_PASSWORD }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gateway-https-hardening-'));
  await start();
});
afterAll(async () => {
  await gw.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('TLS and Host rules with tlsMode both (the default)', () => {
  it('refuses a TLS 1.2 client that offers only CBC, CCM8 or ARIA suites', async () => {
    for (const ciphers of [
      'ECDHE-ECDSA-AES128-SHA',
      'ECDHE-ECDSA-AES256-SHA384',
      'ECDHE-ECDSA-AES128-CCM8',
      'ECDHE-ECDSA-ARIA128-GCM-SHA256',
    ]) {
      await expect(handshake(httpsPort, { maxVersion: 'TLSv1.2', ciphers }), ciphers).rejects.toThrow();
    }
  });

  it('accepts TLS 1.2 with ECDHE and AES-GCM or ChaCha20, and TLS 1.3', async () => {
    for (const cipher of ['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-CHACHA20-POLY1305']) {
      expect(await handshake(httpsPort, { maxVersion: 'TLSv1.2', ciphers: cipher })).toBe(cipher);
    }
    expect(await handshake(httpsPort, {})).toMatch(/^TLS_/);
  });

  it('keeps the suites after a certificate swap (setSecureContext builds a new context)', async () => {
    await gw.gateway.handlers.regenerateTls(undefined, { actor: 'test' });
    await expect(handshake(httpsPort, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-SHA' })).rejects.toThrow();
    expect(await handshake(httpsPort, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' })).toBe(
      'ECDHE-ECDSA-AES128-GCM-SHA256',
    );
  });

  it('sends no HSTS: HTTP is a service of its own here', async () => {
    const page = await httpsHeaders('/GWENDPOINTAPI/_admin/');
    expect(page.status).toBe(200);
    expect(page.headers.has('strict-transport-security')).toBe(false);
    const plain = await raw(httpPort, get('/GWENDPOINTAPI/_admin/', 'Host: 127.0.0.1'));
    expect(plain.status).toBe(200);
    expect(plain.headers.has('strict-transport-security')).toBe(false);
  });

  it('refuses a request with two Host headers: 400 invalid_host', async () => {
    const answer = await raw(httpPort, get('/GWENDPOINTAPI/_health', 'Host: 127.0.0.1', 'Host: evil.example'));
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.parse(answer.body).code).toBe('invalid_host');
    expect((await raw(httpPort, get('/GWENDPOINTAPI/_health', 'Host: 127.0.0.1'))).status).toBe(200);
  });
});

describe('tlsMode on: the redirect, the listed URLs and HSTS', () => {
  beforeAll(async () => {
    const token = await adminToken();
    const put = await fetch(`http://127.0.0.1:${httpPort}/GWENDPOINTAPI/_admin/api/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tlsMode: 'on' }),
    });
    expect(put.status).toBe(200);
    await gw.stop();
    await start();
  });

  it('redirects an allowed host to the same path and query on HTTPS', async () => {
    const byAddress = await raw(httpPort, get('/GWENDPOINTAPI/_health?probe=1', `Host: 127.0.0.1:${httpPort}`));
    expect(byAddress.status).toBe(308);
    expect(byAddress.headers.get('location')).toBe(`https://127.0.0.1:${httpsPort}/GWENDPOINTAPI/_health?probe=1`);
    const byName = await raw(httpPort, get('/GWENDPOINTAPI/_health', `Host: LOCALHOST:${httpPort}`));
    expect(byName.headers.get('location')).toBe(`https://localhost:${httpsPort}/GWENDPOINTAPI/_health`);
    const v6 = await raw(httpPort, get('/GWENDPOINTAPI/_health', `Host: [::1]:${httpPort}`));
    expect(v6.headers.get('location')).toBe(`https://[::1]:${httpsPort}/GWENDPOINTAPI/_health`);
    // HTTP/1.0 without Host: the address the client reached.
    const noHost = await raw(httpPort, 'GET /GWENDPOINTAPI/_health HTTP/1.0\r\n\r\n');
    expect(noHost.headers.get('location')).toBe(`https://127.0.0.1:${httpsPort}/GWENDPOINTAPI/_health`);
  });

  it('refuses to redirect to a host that is not allowed: 403 host_not_allowed, no Location', async () => {
    const answer = await raw(httpPort, get('/GWENDPOINTAPI/_health', 'Host: evil.example'));
    expect(answer.status).toBe(403);
    expect(answer.headers.has('location')).toBe(false);
    expect(JSON.parse(answer.body).code).toBe('host_not_allowed');
    const token = await raw(
      httpPort,
      [
        'POST /GWENDPOINTAPI/token HTTP/1.1',
        'Host: evil.example:8080',
        'Content-Type: application/json',
        'Content-Length: 2',
        'Connection: close',
        '',
        '{}',
      ].join('\r\n'),
    );
    expect(token.status).toBe(403);
    expect(token.headers.has('location')).toBe(false);
    const malformed = await raw(httpPort, get('/GWENDPOINTAPI/_health', 'Host: evil.example/x'));
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body).code).toBe('invalid_host');
  });

  it('builds Location from the path alone for an absolute-form target, whose host must be allowed', async () => {
    const evil = await raw(httpPort, get('http://evil.example/GWENDPOINTAPI/_health', `Host: 127.0.0.1:${httpPort}`));
    expect(evil.status).toBe(403);
    expect(evil.headers.has('location')).toBe(false);
    const own = await raw(
      httpPort,
      get(`http://127.0.0.1:${httpPort}/GWENDPOINTAPI/_health?x=1`, `Host: 127.0.0.1:${httpPort}`),
    );
    expect(own.status).toBe(308);
    expect(own.headers.get('location')).toBe(`https://127.0.0.1:${httpsPort}/GWENDPOINTAPI/_health?x=1`);
  });

  it('refuses two Host headers before redirecting', async () => {
    const answer = await raw(httpPort, get('/GWENDPOINTAPI/_health', 'Host: 127.0.0.1', 'Host: evil.example'));
    expect(answer.status).toBe(400);
    expect(answer.headers.has('location')).toBe(false);
    expect(JSON.parse(answer.body).code).toBe('invalid_host');
  });

  it('lists only the HTTPS URLs, as only the HTTPS listening line is printed', async () => {
    expect(gw.urls).toEqual([`https://127.0.0.1:${httpsPort}/GWENDPOINTAPI`]);
    const res = await fetch(`http://127.0.0.1:${httpPort}/GWENDPOINTAPI/token`, { method: 'POST', redirect: 'manual' });
    expect(res.status).toBe(308);
    const status = await gw.gateway.handlers.getStatus(undefined, { actor: 'test' });
    expect(status.listenUrls).toEqual([`https://127.0.0.1:${httpsPort}/GWENDPOINTAPI`]);
  });

  it('sends HSTS on the admin over HTTPS, and not on the data plane or over HTTP', async () => {
    const page = await httpsHeaders('/GWENDPOINTAPI/_admin/');
    expect(page.status).toBe(200);
    expect(page.headers.get('strict-transport-security')).toBe('max-age=31536000');
    const api = await httpsHeaders('/GWENDPOINTAPI/_admin/api/status');
    expect(api.status).toBe(401);
    expect(api.headers.get('strict-transport-security')).toBe('max-age=31536000');
    expect((await httpsHeaders('/GWENDPOINTAPI/_health')).headers.has('strict-transport-security')).toBe(false);
    const plain = await raw(httpPort, get('/GWENDPOINTAPI/_admin/', 'Host: 127.0.0.1'));
    expect(plain.status).toBe(308);
    expect(plain.headers.has('strict-transport-security')).toBe(false);
  });
});
