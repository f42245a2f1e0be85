import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../server/logger';
import { staticAdmin } from '../../server/http/static-admin';
import { startGateway, type StartedGateway } from '../../server/start-gateway';
import { ADMIN_PASSWORD } from '../helpers/test-gateway';

// The top-level table of server/http/app.ts: each path answers the same with one trailing slash
// (decision 0301). A real gateway with its self-signed certificate, so `_tls/certificate.pem`
// is served, and a built-admin folder of one page, so `_admin` reaches the static files.
let dataDir: string;
let gw: StartedGateway;
let base: string;
let token: string;

const login = async (path: string): Promise<Response> =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: 'admin', password: ADMIN_PASSWORD }),
  });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gateway-top-level-'));
  const renderer = join(dataDir, 'renderer');
  mkdirSync(renderer);
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Gateway admin</title>');
  gw = await startGateway({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    adminPassword: ADMIN_PASSWORD,
    logger: silentLogger,
    adminAssets: staticAdmin(renderer),
  });
  base = `http://127.0.0.1:${gw.server.port}/GWENDPOINTAPI`;
  token = ((await (await login('/token')).json()) as { access_token: string }).access_token;
}, 60_000);
afterAll(async () => {
  await gw.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Each top-level path, how to call it, and what only its own handler answers. */
const PATHS: { path: string; call: (path: string) => Promise<Response>; answered: (res: Response) => Promise<void> }[] =
  [
    {
      path: '/_health',
      call: (path) => fetch(`${base}${path}`),
      answered: async (res) => {
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ status: 'ok' });
      },
    },
    {
      path: '/token',
      call: login,
      answered: async (res) => {
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ token_type: 'Bearer' });
      },
    },
    {
      path: '/token/revoke',
      call: async (path) => {
        const { access_token } = (await (await login('/token')).json()) as { access_token: string };
        return fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token: access_token }),
        });
      },
      answered: async (res) => {
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({});
      },
    },
    {
      path: '/_metrics',
      call: (path) => fetch(`${base}${path}`),
      answered: async (res) => {
        expect(res.status).toBe(200);
        expect(await res.text()).toContain('# TYPE gateway_');
      },
    },
    {
      path: '/_openapi.json',
      call: (path) => fetch(`${base}${path}`),
      answered: async (res) => {
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ openapi: expect.stringMatching(/^3\./) });
      },
    },
    {
      path: '/_tls/certificate.pem',
      call: (path) => fetch(`${base}${path}`),
      answered: async (res) => {
        expect(res.status).toBe(200);
        expect(await res.text()).toMatch(/^-----BEGIN CERTIFICATE-----/);
      },
    },
    {
      path: '/_admin/api/endpoints',
      call: (path) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }),
      answered: async (res) => {
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(await res.json()).toEqual([]);
      },
    },
    {
      path: '/_admin/api',
      // The admin API's root: authentication first, whatever follows.
      call: (path) => fetch(`${base}${path}`),
      answered: async (res) => {
        expect(res.status).toBe(401);
        expect(await res.json()).toMatchObject({ code: 'credentials_missing' });
      },
    },
    {
      path: '/_admin/settings',
      call: (path) => fetch(`${base}${path}`),
      answered: async (res) => {
        expect(res.status).toBe(200);
        expect(await res.text()).toContain('<title>Gateway admin</title>');
      },
    },
  ];

describe('the top-level route table', () => {
  for (const { path, call, answered } of PATHS) {
    it(`answers ${path} and ${path}/ alike`, async () => {
      await answered(await call(path));
      await answered(await call(`${path}/`));
    });
  }

  it('sends the web admin root to its folder, with or without the slash', async () => {
    const bare = await fetch(`${base}/_admin`, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    expect(bare.headers.get('location')).toBe('/GWENDPOINTAPI/_admin/');
    const slash = await fetch(`${base}/_admin/`);
    expect(slash.status).toBe(200);
    expect(await slash.text()).toContain('<title>Gateway admin</title>');
  });

  it('answers another method with 405 and Allow, on either spelling', async () => {
    for (const [path, allow] of [
      ['/_health', 'GET'],
      ['/token', 'POST'],
      ['/token/revoke', 'POST'],
      ['/_metrics', 'GET'],
      ['/_openapi.json', 'GET'],
      ['/_tls/certificate.pem', 'GET'],
    ] as const) {
      for (const spelling of [path, `${path}/`]) {
        const res = await fetch(`${base}${spelling}`, { method: allow === 'GET' ? 'DELETE' : 'GET' });
        expect(res.status, spelling).toBe(405);
        expect(res.headers.get('allow'), spelling).toBe(allow);
        expect(((await res.json()) as { code: string }).code).toBe('method_not_allowed');
      }
    }
  });

  it('leaves two slashes, another case and longer names to the data plane: one 404', async () => {
    for (const path of ['/_health//', '/_HEALTH', '/_healthz', '/token/revoke/x', '/_openapi.jsonx']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe('route_not_found');
    }
  });
});
