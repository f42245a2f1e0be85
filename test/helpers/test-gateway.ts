import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Middleware } from 'koa';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDb, type Db, type DbConfig } from '../../server/db';
import { createGateway, type Gateway } from '../../server/gateway';
import { startServer, type RunningServer } from '../../server/http/start-server';
import { silentLogger } from '../../server/logger';
import { openSecretBox } from '../../server/secret-box';
import { createDatabase } from './postgres-cluster';

export const ADMIN_PASSWORD = 'admin-password-1';

export interface TestGateway {
  gateway: Gateway;
  server: RunningServer;
  dataDir: string;
  /** Base URL up to and including `/GWENDPOINTAPI`. */
  base: string;
  /** A bearer token of the first-start admin. */
  adminToken(): Promise<string>;
  /** Calls the admin API as the admin and returns status + parsed body. */
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

let databases = 0;

/**
 * A fresh database for one test gateway: a SQLite file in its data folder, or, in the postgres
 * test project (GATEWAY_TEST_DATABASE=postgres), a new database on the throwaway cluster.
 */
export async function testDatabase(dataDir: string): Promise<DbConfig> {
  if (process.env.GATEWAY_TEST_DATABASE !== 'postgres')
    return { kind: 'sqlite', filename: join(dataDir, 'gateway.db') };
  const name = `gw_${process.pid}_${Date.now().toString(36)}_${databases++}`;
  return { kind: 'postgres', url: await createDatabase(inject('postgresUrl'), name) };
}

/**
 * A fresh database for the file's tests, opened before them and closed (its folder removed)
 * after: `opened` receives it before any later `beforeAll` of the file runs.
 */
export function useTestDatabase(prefix: string, opened: (db: Db) => void): void {
  let dir = '';
  let db: Db | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    db = await createDb(await testDatabase(dir));
    opened(db);
  });
  afterAll(async () => {
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

/**
 * A real gateway on a fresh database (a SQLite file, or PostgreSQL in the postgres test project),
 * listening on 127.0.0.1 port 0. Browser tests pass
 * `adminAssets: staticAdmin()` so it serves the built web admin as `gateway serve` does.
 */
export async function startTestGateway(
  options: {
    dataDir?: string;
    /** An existing database (another gateway's, closed), instead of a fresh one. */
    database?: DbConfig;
    now?: () => number;
    processQueue?: boolean;
    adminAssets?: Middleware;
  } = {},
): Promise<TestGateway> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const gateway = await createGateway({
    secrets: openSecretBox({ dataDir }),
    database: options.database ?? (await testDatabase(dataDir)),
    logger: silentLogger,
    adminPassword: ADMIN_PASSWORD,
    now: options.now,
    processQueue: options.processQueue,
    adminAssets: options.adminAssets,
  });
  const server = await startServer(gateway.app, { port: 0, host: '127.0.0.1' });
  gateway.runtime.listenUrls = server.urls;
  gateway.runtime.listening = [{ address: server.address, port: server.port }];
  const base = `http://127.0.0.1:${server.port}/GWENDPOINTAPI`;
  let token: string | null = null;
  const adminToken = async () => {
    if (token) return token;
    const response = await fetch(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'admin', password: ADMIN_PASSWORD }),
    });
    if (response.status !== 200) throw new Error(`admin login failed: ${response.status}`);
    token = ((await response.json()) as { access_token: string }).access_token;
    return token;
  };
  return {
    gateway,
    server,
    dataDir,
    base,
    adminToken,
    async admin(method, path, body) {
      const call = async () =>
        fetch(`${base}/_admin/api${path}`, {
          method,
          headers: {
            authorization: `Bearer ${await adminToken()}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      let response = await call();
      if (response.status === 401) {
        // The cached admin session may have expired under a test's clock; log in again once.
        token = null;
        response = await call();
      }
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null, headers: response.headers };
    },
    async close() {
      await server.stop(1000);
      await gateway.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `Authorization: Basic` header value. */
export const basic = (username: string, password: string): string =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

/** A response's JSON body, untyped: tests assert its shape. */
export const json = async (response: Response): Promise<any> => response.json();

/** Polls an async submission's receipt (its `Location`) until the event reaches a final state. */
export async function settledReceipt(gw: TestGateway, location: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const receipt = await json(await fetch(`http://127.0.0.1:${gw.server.port}${location}`));
    if (receipt.status !== 'queued') return receipt;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`receipt ${location} never settled`);
}
