import type { MessageBoxOptions } from 'electron';
import type { ServerState } from './server-controller';

type PortInUse = Extract<ServerState, { kind: 'port_in_use' }>;

/** The answers of the port dialog, by button index. */
export const PORT_CHOICES = ['use-free-port', 'try-again', 'later'] as const;
export type PortChoice = (typeof PORT_CHOICES)[number];

/**
 * Asked when the stored port is taken. Electron has no input box, and a free port next to the
 * usual one is what a technician would type anyway, so the dialog offers that port as a button;
 * any other port can be set later under Settings (then "Restart server" in the tray).
 */
export function portInUseDialog(state: PortInUse, freePort: number): MessageBoxOptions {
  const which = state.port === null ? 'The configured port' : `Port ${state.port}`;
  return {
    type: 'warning',
    title: 'Gateway: port in use',
    message: `${which} is already in use, so the gateway server is not running.`,
    detail:
      'Another program (or another gateway) is listening on it. ' +
      `Use port ${freePort} instead: it is kept for the next starts, and readers and mobile clients ` +
      'must then be pointed at the new address. Or stop the other program and try again.',
    buttons: [`Use port ${freePort}`, 'Try again', 'Not now'],
    defaultId: 0,
    cancelId: 2,
    noLink: true,
  };
}

export const portChoice = (response: number): PortChoice => PORT_CHOICES[response] ?? 'later';

/**
 * Shown once, on the start that created the first admin: the desktop itself needs no password
 * (it acts as the local operator), but the web admin and /token do. Never logged, never written.
 */
export function firstAdminDialog(username: string, password: string): MessageBoxOptions {
  return {
    type: 'info',
    title: 'Gateway: first start',
    message: `Created the user "${username}" for the web admin and API tokens.`,
    detail: `Password: ${password}\n\nIt is shown only this once. Change it under Users.`,
    buttons: ['Copy password', 'Close'],
    defaultId: 0,
    cancelId: 1,
    noLink: true,
  };
}

/** After the desktop saved a new port or host, which only a restart applies. */
export function restartDialog(port: number, host: string): MessageBoxOptions {
  return {
    type: 'question',
    title: 'Gateway: restart the server?',
    message: `Restart the server now to listen on ${host} port ${port}?`,
    detail:
      'Requests in progress finish first; queued events are kept. Readers and mobile clients must use the new address.',
    buttons: ['Restart now', 'Later'],
    defaultId: 0,
    cancelId: 1,
    noLink: true,
  };
}

/** Any other reason the server did not start (bad host address, database error, …). */
export function startFailedDialog(message: string): MessageBoxOptions {
  return {
    type: 'error',
    title: 'Gateway: server not started',
    message: 'The gateway server could not start.',
    detail: `${message}\n\nFix the cause and choose "Start server again" in the tray menu.`,
    buttons: ['Close'],
    noLink: true,
  };
}
