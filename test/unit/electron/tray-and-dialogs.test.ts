import { describe, expect, it, vi } from 'vitest';
import { firstAdminDialog, portChoice, portInUseDialog, restartDialog } from '../../../electron/main/dialogs';
import type { ServerState } from '../../../electron/main/server-controller';
import { stateLine, trayMenuTemplate, type TrayActions } from '../../../electron/main/tray-menu';

/** Spies for every tray action; `satisfies` keeps them in step with TrayActions. */
const actions = () =>
  ({
    copy: vi.fn(),
    showWindow: vi.fn(),
    choosePort: vi.fn(),
    startAgain: vi.fn(),
    restart: vi.fn(),
    quit: vi.fn(),
  }) satisfies TrayActions;

const click = (items: ReturnType<typeof trayMenuTemplate>, label: string) => {
  const item = items.find((entry) => entry.label === label);
  if (!item?.click) throw new Error(`no clickable "${label}" in ${items.map((entry) => entry.label).join(', ')}`);
  (item.click as () => void)();
};

describe('tray menu', () => {
  it('shows the running state and copies a LAN URL on click', () => {
    const state: ServerState = {
      kind: 'running',
      port: 8080,
      urls: ['http://192.168.1.20:8080/GWENDPOINTAPI', 'http://127.0.0.1:8080/GWENDPOINTAPI'],
    };
    const a = actions();
    const items = trayMenuTemplate(state, a);
    expect(items[0]).toEqual({ label: 'Server running on port 8080', enabled: false });
    click(items, 'Copy http://192.168.1.20:8080/GWENDPOINTAPI');
    expect(a.copy).toHaveBeenCalledWith('http://192.168.1.20:8080/GWENDPOINTAPI');
    click(items, 'Quit Gateway');
    expect(a.quit).toHaveBeenCalled();
  });

  it('offers another port when the port is taken', () => {
    const state: ServerState = { kind: 'port_in_use', port: 8080, host: '0.0.0.0', message: 'in use' };
    const a = actions();
    const items = trayMenuTemplate(state, a);
    expect(stateLine(state)).toBe('Server stopped: port 8080 is in use');
    click(items, 'Choose another port…');
    expect(a.choosePort).toHaveBeenCalled();
    expect(items.some((item) => item.label?.startsWith('Copy'))).toBe(false);
    expect(items.at(-1)?.label).toBe('Quit Gateway');
  });

  it('names every state in one line', () => {
    expect(stateLine({ kind: 'failed', message: 'getaddrinfo ENOTFOUND gw.local' })).toContain('ENOTFOUND');
    expect(stateLine({ kind: 'stopping' })).toBe('Server stopping…');
  });
});

describe('dialogs', () => {
  it('offers the free port first and maps the answers', () => {
    const options = portInUseDialog({ kind: 'port_in_use', port: 8080, host: '0.0.0.0', message: '' }, 8081);
    expect(options.message).toContain('Port 8080');
    expect(options.buttons).toEqual(['Use port 8081', 'Try again', 'Not now']);
    expect([0, 1, 2, 7].map(portChoice)).toEqual(['use-free-port', 'try-again', 'later', 'later']);
  });

  it('shows the first admin password and the restart question', () => {
    expect(firstAdminDialog('admin', 's3cret-value').detail).toContain('s3cret-value');
    expect(restartDialog(9090, '0.0.0.0').message).toContain('9090');
  });
});

describe('trayMenuTemplate: silent readers (SPEC §16)', () => {
  it('counts silent readers while the server runs, and says nothing when none is', () => {
    const running: ServerState = { kind: 'running', port: 8080, urls: [] };
    const noop = () => undefined;
    const a = { copy: noop, showWindow: noop, choosePort: noop, startAgain: noop, restart: noop, quit: noop };
    expect(trayMenuTemplate(running, a, 2).map((item) => item.label)).toContain('2 readers silent — open Readers');
    expect(trayMenuTemplate(running, a, 1).map((item) => item.label)).toContain('1 reader silent — open Readers');
    expect(trayMenuTemplate(running, a, 0).some((item) => /silent/.test(item.label ?? ''))).toBe(false);
  });
});
