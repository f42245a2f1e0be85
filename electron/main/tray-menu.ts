import type { MenuItemConstructorOptions } from 'electron';
import type { ServerState } from './server-controller';

/** What the tray's entries do; the composition root supplies them (clipboard, dialogs, quit). */
export interface TrayActions {
  copy(url: string): void;
  showWindow(): void;
  choosePort(): void;
  startAgain(): void;
  restart(): void;
  quit(): void;
}

/** One line of server state: the tray tooltip, the first menu entry and the window title. */
export function stateLine(state: ServerState): string {
  switch (state.kind) {
    case 'running':
      return `Server running on port ${state.port}`;
    case 'starting':
      return 'Server starting…';
    case 'stopping':
      return 'Server stopping…';
    case 'stopped':
      return 'Server stopped';
    case 'port_in_use':
      return state.port === null
        ? 'Server stopped: its port is in use'
        : `Server stopped: port ${state.port} is in use`;
    case 'failed':
      return `Server stopped: ${state.message}`;
  }
}

/**
 * The tray menu for a state: the state itself, the LAN URLs to copy (what a reader or phone is
 * configured with), the way out of a taken port, and Quit.
 */
export function trayMenuTemplate(
  state: ServerState,
  actions: TrayActions,
  /** Readers silent now (SPEC §16): counted in the menu while there are any. */
  silentReaders = 0,
): MenuItemConstructorOptions[] {
  const items: MenuItemConstructorOptions[] = [{ label: stateLine(state), enabled: false }];
  if (state.kind === 'running' && silentReaders > 0) {
    const label = silentReaders === 1 ? '1 reader silent' : `${silentReaders} readers silent`;
    items.push({ label: `${label} — open Readers`, click: () => actions.showWindow() });
  }
  if (state.kind === 'running') {
    for (const url of state.urls) items.push({ label: `Copy ${url}`, click: () => actions.copy(url) });
  }
  if (state.kind === 'port_in_use') {
    items.push({ label: 'Choose another port…', click: () => actions.choosePort() });
  }
  if (state.kind === 'port_in_use' || state.kind === 'failed' || state.kind === 'stopped') {
    items.push({ label: 'Start server again', click: () => actions.startAgain() });
  }
  items.push({ type: 'separator' }, { label: 'Open Gateway', click: () => actions.showWindow() });
  if (state.kind === 'running') {
    items.push({ label: 'Restart server (applies port and host settings)', click: () => actions.restart() });
  }
  items.push({ type: 'separator' }, { label: 'Quit Gateway', click: () => actions.quit() });
  return items;
}
