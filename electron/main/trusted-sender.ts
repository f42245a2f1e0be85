/**
 * The part of an IPC event the guard looks at. Electron's `IpcMainInvokeEvent` has this shape;
 * the narrow type lets tests pass plain objects.
 */
export interface IpcSenderInfo {
  sender: { id: number };
  senderFrame: { url: string; parent: object | null } | null;
}

/** The one window allowed to call the gateway: its webContents id and the page it must show. */
export interface TrustedWindow {
  webContentsId: number;
  appUrl: string;
}

/**
 * True when `url` is the app's own page (file:// of out/renderer/index.html). Query and hash are
 * ignored: the single-page app routes with the hash, which does not change the document.
 */
export function isAppUrl(url: string, appUrl: string): boolean {
  let actual: URL;
  let expected: URL;
  try {
    actual = new URL(url);
    expected = new URL(appUrl);
  } catch {
    return false;
  }
  return (
    actual.protocol === 'file:' &&
    actual.protocol === expected.protocol &&
    actual.host === expected.host &&
    actual.pathname === expected.pathname
  );
}

/**
 * The trusted-sender rule (Electron security checklist #17): an IPC call is served only when it
 * comes from the app window's webContents, from its top frame, while that frame shows the app's
 * own page. Anything else (another window, an iframe, a page the window was navigated to, a
 * frame already gone) is refused. With no window yet, nothing is trusted.
 */
export function isTrustedSender(event: IpcSenderInfo, trusted: TrustedWindow | null): boolean {
  if (!trusted || event.sender.id !== trusted.webContentsId) return false;
  try {
    const frame = event.senderFrame;
    // A frame that navigated away or was destroyed is null, and reading a disposed one throws.
    if (!frame || frame.parent !== null) return false;
    return isAppUrl(frame.url, trusted.appUrl);
  } catch {
    return false;
  }
}
