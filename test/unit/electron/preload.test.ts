import { describe, expect, it, vi } from 'vitest';
import { buildBridge } from '../../../electron/preload/bridge';
import { OPERATION_NAMES } from '../../../server/contract/operations';

const exposed = vi.hoisted(() => new Map<string, unknown>());
const invoke = vi.hoisted(() => vi.fn());

// The real 'electron' module cannot load outside Electron; the preload gets these fakes.
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
  ipcRenderer: { invoke },
}));

describe('buildBridge', () => {
  it('has one method per contract operation, invoking its gateway: channel', async () => {
    const fake = {
      invoke: vi.fn((channel: string, input: unknown) => Promise.resolve({ ok: true, data: { channel, input } })),
    };
    const bridge = buildBridge(fake);
    expect(Object.keys(bridge).sort()).toEqual([...OPERATION_NAMES].sort());
    for (const name of OPERATION_NAMES) expect(typeof bridge[name]).toBe('function');

    expect(await bridge.createRole({ name: 'ops' })).toEqual({
      ok: true,
      data: { channel: 'gateway:createRole', input: { name: 'ops' } },
    });
    await bridge.listRoles();
    expect(fake.invoke).toHaveBeenLastCalledWith('gateway:listRoles', undefined);
    // Exactly one argument travels: the input; nothing else of the page reaches main.
    for (const call of fake.invoke.mock.calls) expect(call).toHaveLength(2);
  });

  it('passes failures through as data', async () => {
    const failure = {
      ok: false,
      code: 'validation_failed',
      message: 'Invalid',
      errors: [{ path: '/name', message: 'x' }],
    };
    const bridge = buildBridge({ invoke: () => Promise.resolve(failure) });
    expect(await bridge.createRole({ name: '' })).toEqual(failure);
  });

  it('cannot be extended by the page', () => {
    const bridge = buildBridge({ invoke: () => Promise.resolve(null) });
    expect(Object.isFrozen(bridge)).toBe(true);
  });
});

describe('preload entry', () => {
  it('exposes the bridge as window.api and nothing else', async () => {
    invoke.mockResolvedValue({ ok: true, data: [] });
    await import('../../../electron/preload/index');
    expect([...exposed.keys()]).toEqual(['api']);
    const api = exposed.get('api') as Record<string, (input?: unknown) => Promise<unknown>>;
    expect(Object.keys(api).sort()).toEqual([...OPERATION_NAMES].sort());
    expect(await api.listEndpoints?.()).toEqual({ ok: true, data: [] });
    expect(invoke).toHaveBeenCalledWith('gateway:listEndpoints', undefined);
  });
});
