import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The production artifact: `npm pack` of this (built) checkout, installed into an empty folder
// with --omit=dev by deploy/install-artifact.sh (the same script the Dockerfile runs), then
// `npx gateway serve` from there: a data route, the web admin page and /token must work with no
// dev toolchain. sqlite3 compiles from source when its prebuilt binary cannot be downloaded
// (~1.5 min on 2 cores); the binary this checkout already has is offered as a local prebuild, the
// way an operator supplies one on an offline box, so CI takes seconds where the name matches.
const ROOT = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'gateway-packed-'));
const children: ReturnType<typeof spawn>[] = [];

/**
 * `npx` runs the gateway as a child of its own and does not pass signals on: the gateway is
 * started in a process group of its own, and the whole group is signalled.
 */
function signalGroup(child: ReturnType<typeof spawn>, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}
afterAll(() => {
  for (const child of children) signalGroup(child, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** sqlite3's prebuild-install file name for this machine, holding this checkout's binary. */
function localPrebuilds(): Record<string, string> {
  const binary = join(ROOT, 'node_modules/sqlite3/build/Release/node_sqlite3.node');
  if (!existsSync(binary) || process.platform !== 'linux') return {};
  const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules/sqlite3/package.json'), 'utf8')) as {
    version: string;
  };
  const folder = join(work, 'prebuilds');
  mkdirSync(folder);
  // prebuild-install -r napi picks the newest N-API version the package lists (6 for sqlite3 6).
  const name = `sqlite3-v${version}-napi-v6-linux-x64.tar.gz`;
  if (process.arch !== 'x64') return {};
  execFileSync('tar', [
    '-czf',
    join(folder, name),
    '-C',
    join(ROOT, 'node_modules/sqlite3'),
    'build/Release/node_sqlite3.node',
  ]);
  return { npm_config_sqlite3_local_prebuilds: folder };
}

describe('packed production install', () => {
  it(
    'npm pack → npm install --omit=dev → npx gateway serve: data route, web admin, /token',
    { timeout: 600_000 },
    async () => {
      const started = Date.now();
      // `npm pack` runs `prepare`, which builds out/ when it is stale.
      execFileSync('npm', ['pack', '--pack-destination', work, '--silent'], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
      expect(tarball).toBeDefined();
      const packed = execFileSync('tar', ['-tzf', join(work, tarball!)], { encoding: 'utf8' });
      expect(packed).toContain('package/out/main/cli.js');
      expect(packed).toContain('package/out/renderer/index.html');
      for (const shipped of ['deploy/install-artifact.sh', 'deploy/gateway.service', 'LICENSE', 'CHANGELOG.md'])
        expect(packed).toContain(`package/${shipped}`);
      expect(packed).not.toMatch(/package\/(server|renderer|test|electron)\//);

      const app = join(work, 'app');
      execFileSync('sh', [join(ROOT, 'deploy/install-artifact.sh'), app, join(work, tarball!)], {
        env: { ...process.env, ...localPrebuilds() },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const installedAt = Date.now();
      const modules = join(app, 'node_modules');
      for (const devOnly of ['tsx', 'electron', 'vite', 'electron-vite', 'typescript'])
        expect(existsSync(join(modules, devOnly)), `${devOnly} installed`).toBe(false);
      expect(existsSync(join(modules, 'sqlite3/build/Release/node_sqlite3.node'))).toBe(true);

      const args = ['--no-install', 'gateway', 'serve', '--port', '0', '--https-port', '0', '--host', '127.0.0.1'];
      const child = spawn('npx', args, {
        detached: true,
        cwd: app,
        env: { ...process.env, GATEWAY_ADMIN_PASSWORD: 'packed-admin-1', GATEWAY_DATA_DIR: join(app, 'data') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const base = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}\n${err}`)), 60_000);
        child.stdout.on('data', () => {
          const match = /Gateway listening on (http:\/\/\S+)/.exec(out);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
        child.on('exit', () => reject(new Error(`gateway exited:\n${out}\n${err}`)));
      });

      const token = await fetch(`${base}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: 'admin', password: 'packed-admin-1' }),
      });
      expect(token.status).toBe(200);
      const { access_token } = (await token.json()) as { access_token: string };

      const admin = await fetch(`${base}/_admin/`);
      expect(admin.status).toBe(200);
      const page = await admin.text();
      expect(page).toMatch(/<script[^>]+src="\.\/assets\/index-[\w-]+\.js"/);
      const script = /src="\.\/(assets\/index-[\w-]+\.js)"/.exec(page)![1];
      expect((await fetch(`${base}/_admin/${script}`)).status).toBe(200);

      const created = await fetch(`${base}/_admin/api/endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Packed',
          baseRoutePath: 'packed',
          routes: [{ name: 'ingest', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth' }],
        }),
      });
      expect(created.status).toBe(201);
      const posted = await fetch(`${base}/packed/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ epc: '300000000000000000000001', antenna: 1 }),
      });
      expect(posted.status).toBe(200);
      expect(((await posted.json()) as { status: string }).status).toBe('processed');
      expect((await fetch(`${base}/_health`)).status).toBe(200);

      const exited = new Promise((resolve) => child.once('exit', resolve));
      signalGroup(child, 'SIGTERM');
      await exited;

      // Without its build the installed command says what to do (there is no tsx to fall back on).
      const bin = join(modules, 'gateway/bin/gateway.js');
      const cli = join(modules, 'gateway/out/main/cli.js');
      renameSync(cli, `${cli}.away`);
      const broken = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
      renameSync(`${cli}.away`, cli);
      expect(broken.status).toBe(1);
      expect(broken.stderr).toContain('is missing or stale and tsx is not installed; run "npm run build"');
      expect(spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }).stdout).toMatch(
        /^gateway \d+\.\d+\.\d+\n$/,
      );
      console.log(
        `packed install: pack + install ${((installedAt - started) / 1000).toFixed(1)} s, total ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    },
  );
});
