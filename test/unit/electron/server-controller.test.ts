import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findFreePort, portInUseDetails, portIsFree } from '../../../electron/main/free-port';
import { DESKTOP_CONTEXT } from '../../../electron/main/ipc';
import { createServerController, type ServerState } from '../../../electron/main/server-controller';
import { AppError } from '../../../server/errors';
import { silentLogger } from '../../../server/logger';
import { startGateway } from '../../../server/start-gateway';

const HOST = '127.0.0.1';
let dataDir: string;
let blocker: Server;
let takenPort: number;

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gateway-desktop-'));
  // Another program holding what will be the gateway's configured port.
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, HOST, resolve));
  takenPort = (blocker.address() as AddressInfo).port;
});

afterEach(async () => {
  await new Promise((resolve) => blocker.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A controller over the real startGateway. The stored port cannot be set before the first start
 * without creating the admin, so "the stored port" is the taken one unless the user picks one.
 */
function controller(extra: { adminPassword?: string } = {}) {
  const states: ServerState[] = [];
  const revealed: { username: string; password: string }[] = [];
  const restartsOffered: number[] = [];
  const ctl = createServerController({
    start: ({ port, adminPassword }) =>
      // httpsPort 0: the default 8443 would be shared by every test gateway on the machine.
      startGateway({ dataDir, port: port ?? takenPort, httpsPort: 0, host: HOST, adminPassword, logger: silentLogger }),
    adminPassword: extra.adminPassword,
    onChange: (state) => states.push(state),
    onFirstAdmin: (admin) => revealed.push(admin),
    onRestartRequired: (settings) => restartsOffered.push(settings.port),
    logger: silentLogger,
  });
  return { ctl, states, revealed, restartsOffered };
}

const token = (port: number, password: string) =>
  fetch(`http://${HOST}:${port}/GWENDPOINTAPI/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: 'admin', password }),
  });

describe('server controller', () => {
  it('reports port_in_use with the port, answers calls with a clear error, then runs on the chosen port', async () => {
    const { ctl, states, revealed } = controller();
    const failed = await ctl.start();
    expect(failed).toMatchObject({ kind: 'port_in_use', port: takenPort, host: HOST });
    expect(states.map((s) => s.kind)).toEqual(['starting', 'port_in_use']);
    await expect(ctl.handlers.getStatus(undefined, DESKTOP_CONTEXT)).rejects.toMatchObject({
      code: 'database_unavailable',
      message: expect.stringContaining(`port ${takenPort} is in use`),
    });

    const chosen = await findFreePort(HOST, takenPort + 1);
    const running = await ctl.start(chosen);
    expect(running).toMatchObject({
      kind: 'running',
      port: chosen,
      // HTTP first, then HTTPS (tlsMode both, the default).
      urls: [
        `http://${HOST}:${chosen}/GWENDPOINTAPI`,
        expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/GWENDPOINTAPI$/),
      ],
    });
    // The chosen port is now the stored setting, so the next start uses it.
    expect((await ctl.handlers.getSettings(undefined, DESKTOP_CONTEXT)).port).toBe(chosen);

    // The first start created the admin before failing to listen; its password is still shown once.
    expect(revealed).toHaveLength(1);
    expect((await token(chosen, revealed[0].password)).status).toBe(200);
    await ctl.stop();
    expect(ctl.state()).toEqual({ kind: 'stopped' });
  });

  it('reveals nothing when GATEWAY_ADMIN_PASSWORD chose the password', async () => {
    const { ctl, revealed } = controller({ adminPassword: 'chosen-by-operator-1' });
    await ctl.start(await findFreePort(HOST, takenPort + 1));
    expect(revealed).toEqual([]);
    await ctl.stop();
  });

  it('restarts on the stored port after a port change from the desktop, offering the restart', async () => {
    const { ctl, restartsOffered } = controller();
    const first = await findFreePort(HOST, takenPort + 1);
    await ctl.start(first);
    const next = await findFreePort(HOST, first + 1);
    const saved = await ctl.handlers.updateSettings({ port: next }, DESKTOP_CONTEXT);
    expect(saved).toMatchObject({ port: next, restartRequired: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(restartsOffered).toEqual([next]);

    // The restart reads the stored settings again: the test's `start` only overrides when asked.
    expect(await ctl.restart()).toMatchObject({ kind: 'port_in_use' });
    expect(await ctl.start(next)).toMatchObject({ kind: 'running', port: next });
    await ctl.stop();
  });

  it('lets an IPC call in flight finish before the database closes', async () => {
    const { ctl } = controller();
    await ctl.start(await findFreePort(HOST, takenPort + 1));
    const call = ctl.handlers.createRole({ name: 'late.caller' }, DESKTOP_CONTEXT);
    const stopping = ctl.stop();
    await expect(call).resolves.toMatchObject({ name: 'late.caller' });
    await stopping;
    await expect(ctl.handlers.listRoles(undefined, DESKTOP_CONTEXT)).rejects.toMatchObject({
      code: 'database_unavailable',
    });
  });

  it('makes calls issued during start-up wait for the server', async () => {
    const { ctl } = controller();
    const starting = ctl.start(await findFreePort(HOST, takenPort + 1));
    const roles = ctl.handlers.listRoles(undefined, DESKTOP_CONTEXT);
    await starting;
    await expect(roles).resolves.toEqual(expect.arrayContaining([expect.objectContaining({ name: 'admin' })]));
    await ctl.stop();
  });
});

describe('free ports', () => {
  it('finds the next free port above a taken one', async () => {
    expect(await portIsFree(HOST, takenPort)).toBe(false);
    const free = await findFreePort(HOST, takenPort);
    expect(free).toBeGreaterThan(takenPort);
    expect(await portIsFree(HOST, free)).toBe(true);
  });

  it('reads port and host back from a port_in_use error', () => {
    const error = new AppError('port_in_use', 'Port 8080 on 0.0.0.0 is already in use; choose another port');
    expect(portInUseDetails(error)).toEqual({ port: 8080, host: '0.0.0.0' });
    expect(portInUseDetails(new AppError('port_in_use', 'reworded'))).toEqual({ port: null, host: null });
    const withData = new AppError('port_in_use', 'reworded', { extra: { port: 9000, host: '::' } });
    expect(portInUseDetails(withData)).toEqual({ port: 9000, host: '::' });
  });
});
