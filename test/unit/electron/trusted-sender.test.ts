import { describe, expect, it } from 'vitest';
import { isAppUrl, isTrustedSender, type IpcSenderInfo } from '../../../electron/main/trusted-sender';

const APP_URL = 'file:///home/tech/gateway/out/renderer/index.html';
const trusted = { webContentsId: 3, appUrl: APP_URL };
const event = (id: number, url: string, parent: object | null = null): IpcSenderInfo => ({
  sender: { id },
  senderFrame: { url, parent },
});

describe('isTrustedSender', () => {
  it('trusts the app window on the app page, whatever its hash route', () => {
    expect(isTrustedSender(event(3, APP_URL), trusted)).toBe(true);
    expect(isTrustedSender(event(3, `${APP_URL}#/settings/endpoints`), trusted)).toBe(true);
  });

  it('refuses another webContents even on the same page', () => {
    expect(isTrustedSender(event(4, APP_URL), trusted)).toBe(false);
  });

  it('refuses the app window once it shows another page', () => {
    expect(isTrustedSender(event(3, 'https://evil.example/index.html'), trusted)).toBe(false);
    expect(isTrustedSender(event(3, 'file:///tmp/out/renderer/index.html'), trusted)).toBe(false);
    expect(isTrustedSender(event(3, 'file:///home/tech/gateway/out/renderer/other.html'), trusted)).toBe(false);
    expect(isTrustedSender(event(3, 'about:blank'), trusted)).toBe(false);
  });

  it('refuses a subframe, a missing frame and a disposed frame', () => {
    expect(isTrustedSender(event(3, APP_URL, {}), trusted)).toBe(false);
    expect(isTrustedSender({ sender: { id: 3 }, senderFrame: null }, trusted)).toBe(false);
    const disposed = {
      sender: { id: 3 },
      get senderFrame(): IpcSenderInfo['senderFrame'] {
        throw new Error('Render frame was disposed before WebFrameMain could be accessed');
      },
    };
    expect(isTrustedSender(disposed, trusted)).toBe(false);
  });

  it('trusts nothing before the window exists', () => {
    expect(isTrustedSender(event(3, APP_URL), null)).toBe(false);
  });
});

describe('isAppUrl', () => {
  it('matches the app file only', () => {
    expect(isAppUrl(`${APP_URL}?x=1#/a`, APP_URL)).toBe(true);
    expect(isAppUrl('http://localhost/home/tech/gateway/out/renderer/index.html', APP_URL)).toBe(false);
    expect(isAppUrl('not a url', APP_URL)).toBe(false);
  });
});
