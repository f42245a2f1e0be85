import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  app,
  BrowserWindow,
  clipboard,
  dialog,
  ipcMain,
  Menu,
  nativeImage,
  session,
  Tray,
  Notification,
  type MessageBoxOptions,
  type MessageBoxReturnValue,
} from 'electron';
import { staticAdmin } from '../../server/http/static-admin';
import { gatewayLogFile } from '../../server/log-file';
import { createLogger } from '../../server/logger';
import { startGateway } from '../../server/start-gateway';
import { DesktopShell } from './desktop-shell';
import { firstAdminDialog, portChoice, portInUseDialog, restartDialog, startFailedDialog } from './dialogs';
import { findFreePort } from './free-port';
import { iconPng } from './icon';
import { bindIpc } from './ipc';
import { createServerController, type ServerState } from './server-controller';
import { stateLine, trayMenuTemplate } from './tray-menu';
import { isTrustedSender } from './trusted-sender';
import { allowPermission, guardNavigation, windowOptions, withCsp } from './window';

// The composition root of the desktop app. It wires Electron to the same startGateway that
// `gateway serve` runs; every decision worth a test lives in the small modules beside it.

// Paths relative to this bundle (out/main/index.js): valid in the project and inside app.asar.
const APP_URL = new URL('../renderer/index.html', import.meta.url).href;
const RENDERER_DIR = fileURLToPath(new URL('../renderer/', import.meta.url));
const PRELOAD_PATH = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));

// One user-data folder in development and packaged alike (the package is named "gateway", the
// product "Gateway"). Set before anything reads it: the single-instance lock is keyed on it.
app.setPath('userData', join(app.getPath('appData'), 'Gateway'));
const dataDir = join(app.getPath('userData'), 'data');
// Lines go to stderr and to <data>/logs/gateway.log, as with `gateway serve` (opened at the
// first line, so a second instance that only hands over to the first leaves no trace).
const logger = createLogger({ file: gatewayLogFile(dataDir) });

// Everything the main process holds between events (window, tray, silent readers, a port choice
// or a quit under way), in one object made here.
const shell = new DesktopShell<BrowserWindow, Tray>({
  stop: () => controller.stop(),
  quit: () => app.quit(),
  exit: (code) => app.exit(code),
  logger,
});

const controller = createServerController({
  // The stored port and host apply; `port` is only ever the free port the user picked.
  start: ({ port, adminPassword }) =>
    startGateway({
      dataDir,
      databaseUrl: process.env.GATEWAY_DATABASE_URL || undefined,
      port,
      adminPassword,
      // The LAN gets the same web admin as `gateway serve` offers.
      adminAssets: staticAdmin(RENDERER_DIR),
      logger,
    }),
  adminPassword: process.env.GATEWAY_ADMIN_PASSWORD || undefined,
  logger,
  onChange: showState,
  onFirstAdmin: ({ username, password }) => void revealFirstAdmin(username, password),
  onReaderChange: (change, silent) => {
    shell.silentReaders = silent;
    showState(controller.state());
    // A system notification when a reader turns silent (SPEC §16); coming back is logged only.
    if (change.state === 'silent' && Notification.isSupported()) {
      const label = change.name ? `${change.name} (${change.readerId})` : change.readerId;
      const note = new Notification({ title: 'Reader silent', body: `${label} has not been heard from.` });
      note.on('click', showWindow);
      note.show();
    }
  },
  onRestartRequired: (settings) => void offerRestart(settings.port, settings.host),
});

if (!app.requestSingleInstanceLock()) {
  // Another Gateway owns the data folder and the port: it focuses its window; this one leaves.
  app.quit();
} else {
  app.on('second-instance', showWindow);
  // Closing the window quits (and stops the server): a server nobody can see is easy to forget,
  // and tray icons are not shown on every Linux desktop.
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', shell.beforeQuit);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
  app
    .whenReady()
    .then(boot)
    .catch((error: unknown) => {
      logger.error('the desktop app failed to start', { error });
      app.exit(1);
    });
}

async function boot(): Promise<void> {
  installSessionPolicy();
  // Bound before the page loads, so its first calls find their handlers.
  bindIpc(
    ipcMain,
    controller.handlers,
    (event) => {
      const window = shell.liveWindow();
      return isTrustedSender(event, window ? { webContentsId: window.webContents.id, appUrl: APP_URL } : null);
    },
    logger,
  );
  createWindow();
  createTray();
  await startServer();
}

function installSessionPolicy(): void {
  const ses = session.defaultSession;
  ses.webRequest.onHeadersReceived((details, callback) =>
    callback({ responseHeaders: withCsp(details.responseHeaders) }),
  );
  ses.setPermissionRequestHandler((_contents, permission, callback) => callback(allowPermission(permission)));
  ses.setPermissionCheckHandler((_contents, permission) => allowPermission(permission));
  // Every webContents, not just the window's: nothing may open windows or navigate away.
  app.on('web-contents-created', (_event, contents) => guardNavigation(contents, APP_URL));
}

function createWindow(): void {
  const win = new BrowserWindow({ ...windowOptions(PRELOAD_PATH), icon: nativeImage.createFromBuffer(iconPng(256)) });
  shell.window = win;
  // The title carries the server state; the page's <title> must not replace it.
  win.on('page-title-updated', (event) => event.preventDefault());
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    shell.window = null;
  });
  win.loadURL(APP_URL).catch((error: unknown) => {
    logger.error('could not load the renderer; run "npm run build"', { error, url: APP_URL });
    win.show();
  });
}

function showWindow(): void {
  const window = shell.window;
  if (!window) return;
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

function createTray(): void {
  const image = nativeImage.createEmpty();
  image.addRepresentation({ scaleFactor: 1, buffer: iconPng(16) });
  image.addRepresentation({ scaleFactor: 2, buffer: iconPng(32) });
  const tray = new Tray(image);
  shell.tray = tray;
  tray.on('click', showWindow);
  showState(controller.state());
}

/** Mirrors the server state in the tray (tooltip and menu) and the window title. */
function showState(state: ServerState): void {
  const line = stateLine(state);
  const tray = shell.liveTray();
  if (tray) {
    tray.setToolTip(`Gateway: ${line}`);
    tray.setContextMenu(
      Menu.buildFromTemplate(
        trayMenuTemplate(
          state,
          {
            copy: (url) => copyText(url),
            showWindow,
            choosePort: () => void choosePort(),
            startAgain: () => void startServer(),
            restart: () => void restartServer(),
            quit: () => app.quit(),
          },
          shell.silentReaders,
        ),
      ),
    );
  }
  shell.liveWindow()?.setTitle(state.kind === 'running' ? 'Gateway' : `Gateway — ${line}`);
}

/** A message box, attached to the window when it is on screen (a hidden parent hides it). */
function ask(options: MessageBoxOptions): Promise<MessageBoxReturnValue> {
  const window = shell.liveWindow();
  return window?.isVisible() ? dialog.showMessageBox(window, options) : dialog.showMessageBox(options);
}

async function startServer(port?: number): Promise<void> {
  await afterStart(await controller.start(port));
}

async function restartServer(): Promise<void> {
  await afterStart(await controller.restart());
}

async function afterStart(state: ServerState): Promise<void> {
  if (state.kind === 'port_in_use') await choosePort();
  else if (state.kind === 'failed') await ask(startFailedDialog(state.message));
}

/** The way out of a taken port: offer the next free one (kept as the new setting) or retry. */
async function choosePort(): Promise<void> {
  const state = controller.state();
  if (state.kind !== 'port_in_use') return;
  await shell.choosePort(async (release) => {
    const freePort = await findFreePort(state.host ?? '0.0.0.0', (state.port ?? 8080) + 1);
    const choice = portChoice((await ask(portInUseDialog(state, freePort))).response);
    // Released before starting again: a port taken meanwhile brings this dialog back.
    release();
    if (choice === 'use-free-port') await startServer(freePort);
    else if (choice === 'try-again') await startServer();
  });
}

/** Electron's clipboard writes asynchronously; a failed copy is logged, never an unhandled rejection. */
function copyText(text: string): void {
  clipboard.writeText(text).catch((error: unknown) => logger.warn('clipboard write failed', { error: String(error) }));
}

async function revealFirstAdmin(username: string, password: string): Promise<void> {
  // The password goes to the screen (and the clipboard on request) only, never to the log.
  logger.info('first start: created the admin user; its password is shown in a dialog', { username });
  const { response } = await ask(firstAdminDialog(username, password));
  if (response === 0) copyText(password);
}

async function offerRestart(port: number, host: string): Promise<void> {
  const { response } = await ask(restartDialog(port, host));
  if (response === 0) await restartServer();
}
