import type { WebContents } from 'electron';
import { describe, expect, it } from 'vitest';
import { allowPermission, guardNavigation, windowOptions, withCsp } from '../../../electron/main/window';
import { ADMIN_CSP } from '../../../server/http/static-admin';

const APP_URL = 'file:///app/out/renderer/index.html';

describe('windowOptions', () => {
  it('isolates and sandboxes the renderer', () => {
    const options = windowOptions('/app/out/preload/index.cjs');
    expect(options.webPreferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(options.show).toBe(false);
  });
});

describe('guardNavigation', () => {
  /** Records what the guard installs on a webContents. */
  function fakeContents() {
    const listeners = new Map<string, (event: { url?: string; preventDefault(): void }) => void>();
    let openHandler: ((details: { url: string }) => { action: string }) | null = null;
    const contents = {
      setWindowOpenHandler: (handler: typeof openHandler) => {
        openHandler = handler;
      },
      on: (name: string, listener: (event: { url?: string; preventDefault(): void }) => void) => {
        listeners.set(name, listener);
        return contents;
      },
    };
    guardNavigation(contents as unknown as WebContents, APP_URL);
    const emit = (name: string, url?: string) => {
      let prevented = false;
      listeners.get(name)?.({ url, preventDefault: () => (prevented = true) });
      return prevented;
    };
    return { emit, open: (url: string) => openHandler?.({ url }) };
  }

  it('denies every new window', () => {
    expect(fakeContents().open('https://example.com/')).toEqual({ action: 'deny' });
  });

  it('lets the window move only within the app page', () => {
    const { emit } = fakeContents();
    expect(emit('will-navigate', `${APP_URL}#/events`)).toBe(false);
    expect(emit('will-navigate', 'https://example.com/')).toBe(true);
    expect(emit('will-navigate', 'file:///etc/passwd')).toBe(true);
  });

  it('refuses <webview>', () => {
    expect(fakeContents().emit('will-attach-webview')).toBe(true);
  });
});

describe('withCsp', () => {
  it('sets the admin CSP, replacing any other spelling of the header', () => {
    const headers = withCsp({ 'content-security-policy': ['default-src *'], 'Content-Type': ['text/html'] });
    expect(headers).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [ADMIN_CSP] });
    expect(withCsp(undefined)).toEqual({ 'Content-Security-Policy': [ADMIN_CSP] });
    expect(ADMIN_CSP).toContain("script-src 'self'");
  });
});

describe('allowPermission', () => {
  it('allows clipboard writes only', () => {
    expect(allowPermission('clipboard-sanitized-write')).toBe(true);
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read']) {
      expect(allowPermission(permission)).toBe(false);
    }
  });
});
