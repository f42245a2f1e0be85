import type { BrowserWindowConstructorOptions, WebContents } from 'electron';
import { ADMIN_CSP } from '../../server/http/static-admin';
import { isAppUrl } from './trusted-sender';

/**
 * The app window's options. The renderer gets no Node and no Electron: it runs sandboxed, in
 * its own JavaScript world, and reaches the gateway only through the preload's `window.api`.
 */
export function windowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 880,
    minHeight: 560,
    title: 'Gateway',
    // Shown once the first paint is ready, so the window never flashes white.
    show: false,
    autoHideMenuBar: true,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  };
}

/**
 * Keeps the window on the app's own page: no new windows, no navigation elsewhere (a dropped
 * link or a stray `location =` would otherwise load foreign content next to the preload's API),
 * no <webview>.
 */
export function guardNavigation(contents: WebContents, appUrl: string): void {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event) => {
    if (!isAppUrl(event.url, appUrl)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/**
 * Response headers with the admin CSP, replacing whatever policy a response carried (header
 * names are case-insensitive, so every spelling is removed). The renderer's index.html carries
 * the same policy as a meta tag too, because not every Electron version passes file:// responses
 * through webRequest; the header adds what a meta tag cannot (frame-ancestors).
 */
export function withCsp(headers: Record<string, string[]> | undefined): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') result[name] = value;
  }
  result['Content-Security-Policy'] = [ADMIN_CSP];
  return result;
}

/**
 * Browser permissions the renderer may use: only writing to the clipboard (the "copy" buttons
 * for a new access token and the listen URLs). Camera, location, notifications … are refused.
 */
export function allowPermission(permission: string): boolean {
  return permission === 'clipboard-sanitized-write';
}
