import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi, type Mock } from 'vitest';
import { bindIpc, DESKTOP_CONTEXT, toIpcResult, type IpcMainLike } from '../../../electron/main/ipc';
import { isTrustedSender, type IpcSenderInfo } from '../../../electron/main/trusted-sender';
import { OPERATION_NAMES, type GatewayHandlers, type OperationName } from '../../../server/contract/operations';
import { AppError } from '../../../server/errors';
import { createGateway, type Gateway } from '../../../server/gateway';
import { openSecretBox } from '../../../server/secret-box';
import { silentLogger } from '../../../server/logger';

const APP_URL = 'file:///opt/Gateway/resources/app.asar/out/renderer/index.html';
const WINDOW_ID = 7;
const fromWindow: IpcSenderInfo = {
  sender: { id: WINDOW_ID },
  senderFrame: { url: `${APP_URL}#/roles`, parent: null },
};
const fromElsewhere: IpcSenderInfo = { sender: { id: 99 }, senderFrame: { url: APP_URL, parent: null } };

type Listener = Parameters<IpcMainLike['handle']>[1];

/** Records what bindIpc registers, like ipcMain.handle, and lets a test invoke a channel. */
function fakeIpcMain() {
  const channels = new Map<string, Listener>();
  const ipcMain: IpcMainLike = {
    handle(channel, listener) {
      if (channels.has(channel)) throw new Error(`second handler for ${channel}`);
      channels.set(channel, listener);
    },
  };
  const invoke = (channel: string, input?: unknown, event: IpcSenderInfo = fromWindow): Promise<any> => {
    const listener = channels.get(channel);
    if (!listener) throw new Error(`no handler for ${channel}`);
    return listener(event, input);
  };
  return { ipcMain, channels, invoke };
}

const guard = (event: IpcSenderInfo) => isTrustedSender(event, { webContentsId: WINDOW_ID, appUrl: APP_URL });

let dataDir: string;
let gateway: Gateway;
let ipc: ReturnType<typeof fakeIpcMain>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gateway-ipc-'));
  gateway = await createGateway({
    secrets: openSecretBox({ dataDir }),
    database: { kind: 'sqlite', filename: join(dataDir, 'gateway.db') },
    logger: silentLogger,
    adminPassword: 'admin-password-1',
  });
  ipc = fakeIpcMain();
  bindIpc(ipc.ipcMain, gateway.handlers, guard);
});

afterAll(async () => {
  await gateway.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('bindIpc', () => {
  it('binds exactly one channel per contract operation, and nothing else', () => {
    const bound = [...ipc.channels.keys()].sort();
    expect(bound).toEqual(OPERATION_NAMES.map((name) => `gateway:${name}`).sort());
    // The real handler table of createGateway: every one of its operations is reachable.
    expect(bound).toEqual(
      Object.keys(gateway.handlers)
        .map((name) => `gateway:${name}`)
        .sort(),
    );
    expect(bound.length).toBeGreaterThanOrEqual(34);
  });

  it('answers a successful call as {ok:true, data}, acting as user:desktop', async () => {
    const created = await ipc.invoke('gateway:createRole', { name: 'site.ops', description: 'Site operators' });
    expect(created).toEqual({
      ok: true,
      data: expect.objectContaining({ name: 'site.ops', description: 'Site operators' }),
    });
    const read = await ipc.invoke('gateway:getRole', { id: created.data.id });
    expect(read).toEqual({ ok: true, data: created.data });
    const listed = await ipc.invoke('gateway:listRoles');
    expect(listed.data.map((role: { name: string }) => role.name)).toContain('site.ops');
    const audit = await gateway.handlers.listAudit({}, DESKTOP_CONTEXT);
    expect(audit.items.find((entry) => entry.summary.includes('site.ops'))).toMatchObject({
      actor: 'user:desktop',
      action: 'create',
    });
  });

  it('answers a void operation with {ok:true}', async () => {
    const role = await ipc.invoke('gateway:createRole', { name: 'temporary' });
    expect(await ipc.invoke('gateway:deleteRole', { id: role.data.id })).toEqual({ ok: true, data: undefined });
  });

  it('sends validation errors back as data with their field errors', async () => {
    const answer = await ipc.invoke('gateway:createRole', { name: '1 not a name' });
    expect(answer).toMatchObject({ ok: false, code: 'validation_failed', message: expect.any(String) });
    expect(answer.errors).toEqual([expect.objectContaining({ path: '/name', message: expect.any(String) })]);
  });

  it('sends conflicts back with their code', async () => {
    await ipc.invoke('gateway:createRole', { name: 'scanners' });
    expect(await ipc.invoke('gateway:createRole', { name: 'SCANNERS' })).toMatchObject({
      ok: false,
      code: 'role_name_taken',
    });
    expect(await ipc.invoke('gateway:getRole', { id: 987654 })).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('refuses a call from another webContents without reaching the service', async () => {
    const { spies, handlers } = spyHandlers();
    const local = fakeIpcMain();
    bindIpc(local.ipcMain, handlers, guard);
    for (const name of OPERATION_NAMES) {
      const answer = await local.invoke(`gateway:${name}`, {}, fromElsewhere);
      expect(answer).toMatchObject({ ok: false, code: 'forbidden' });
    }
    for (const spy of Object.values(spies)) expect(spy).not.toHaveBeenCalled();
    // The same sender, on the app's own page, is served.
    expect(await local.invoke('gateway:listRoles', undefined, fromWindow)).toEqual({ ok: true, data: [] });
  });

  it('refuses a call from an iframe or a page the window navigated to', async () => {
    expect(
      await ipc.invoke('gateway:listRoles', undefined, {
        sender: { id: WINDOW_ID },
        senderFrame: { url: APP_URL, parent: {} },
      }),
    ).toMatchObject({ ok: false, code: 'forbidden' });
    expect(
      await ipc.invoke('gateway:listRoles', undefined, {
        sender: { id: WINDOW_ID },
        senderFrame: { url: 'https://example.com/', parent: null },
      }),
    ).toMatchObject({ ok: false, code: 'forbidden' });
  });

  it('hides unexpected errors behind internal_error, without stack or wording', async () => {
    const { spies, handlers } = spyHandlers();
    spies.listRoles.mockRejectedValue(new Error('SQLITE_CORRUPT: secret detail at /home/x'));
    const local = fakeIpcMain();
    bindIpc(local.ipcMain, handlers, guard);
    const answer = await local.invoke('gateway:listRoles');
    expect(answer).toEqual({ ok: false, code: 'internal_error', message: expect.any(String) });
    expect(JSON.stringify(answer)).not.toMatch(/SQLITE|secret|stack|\/home/);
  });
});

describe('toIpcResult', () => {
  it('carries every field of an AppError', async () => {
    const error = new AppError('role_in_use', 'Role is in use', {
      references: [{ kind: 'route', id: 1, name: 'scan' }],
    });
    expect(await toIpcResult('deleteRole', () => Promise.reject(error))).toEqual({
      ok: false,
      code: 'role_in_use',
      message: 'Role is in use',
      references: [{ kind: 'route', id: 1, name: 'scan' }],
    });
  });

  it('catches a synchronous throw too', async () => {
    const answer = await toIpcResult('getStatus', () => {
      throw new TypeError('boom');
    });
    expect(answer).toMatchObject({ ok: false, code: 'internal_error' });
  });
});

/** A handler table of spies answering empty lists, and the same table typed for bindIpc. */
function spyHandlers() {
  const spies = Object.fromEntries(OPERATION_NAMES.map((name) => [name, vi.fn().mockResolvedValue([])])) as Record<
    OperationName,
    Mock
  >;
  return { spies, handlers: spies as unknown as GatewayHandlers };
}
