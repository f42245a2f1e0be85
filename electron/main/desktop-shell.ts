import type { Logger } from '../../server/logger';

/** The window as the shell keeps it: Electron's `BrowserWindow`, or a test's stand-in. */
export interface ShellWindow {
  isDestroyed(): boolean;
}

/** The tray as the shell keeps it: Electron's `Tray`, or a test's stand-in. */
export interface ShellTray {
  isDestroyed(): boolean;
  destroy(): void;
}

export interface ShellDeps {
  /** Stops the embedded server gracefully (the server controller's `stop`). */
  stop(): Promise<void>;
  /** Quits the app (`app.quit`): fires `before-quit` again, which then lets it through. */
  quit(): void;
  /** Ends the process at once (`app.exit`). */
  exit(code: number): void;
  logger: Logger;
  /** How long a stop may take before the app exits anyway; the same deadline `gateway serve` keeps. */
  quitDeadlineMs?: number;
}

/** Where quitting stands: not asked, waiting for the server to stop, or free to go. */
type Quitting = 'no' | 'stopping' | 'stopped';

/**
 * What the desktop's main process holds between Electron's events: its one window and tray, the
 * count of silent readers the tray menu shows, whether a port choice is open, and where quitting
 * stands. Made once, by the composition root (`index.ts`), which does the Electron calls; this
 * module never imports Electron, so tests drive it with stand-ins.
 */
export class DesktopShell<W extends ShellWindow, T extends ShellTray> {
  /** The app's window; null once it was closed. */
  window: W | null = null;
  tray: T | null = null;
  /** Readers silent at the last look (the tray menu counts them). */
  silentReaders = 0;
  private choosingPort = false;
  private quitting: Quitting = 'no';

  constructor(private readonly deps: ShellDeps) {}

  /** The window while it is still there (Electron may destroy it before its `closed` event). */
  liveWindow(): W | null {
    return this.window && !this.window.isDestroyed() ? this.window : null;
  }

  /** The tray while it is still there. */
  liveTray(): T | null {
    return this.tray && !this.tray.isDestroyed() ? this.tray : null;
  }

  /**
   * Runs one port choice at a time: a second one while a dialog is open does nothing. `choose`
   * calls `release` before it starts the server again, so that a port taken meanwhile can bring
   * the dialog back.
   */
  async choosePort(choose: (release: () => void) => Promise<void>): Promise<void> {
    if (this.choosingPort) return;
    this.choosingPort = true;
    try {
      await choose(() => {
        this.choosingPort = false;
      });
    } finally {
      this.choosingPort = false;
    }
  }

  /**
   * `before-quit`: quitting waits for a graceful stop (no new connections, requests and IPC calls
   * in flight finish, the worker ends its batch and the queue stays in the database for the next
   * start). The first call holds the quit back and stops the server, later ones while it stops are
   * held back too, and once it has stopped the tray goes and the quit goes through. A stuck stop
   * must not keep the app open: past the deadline the process exits.
   */
  beforeQuit = (event: { preventDefault(): void }): void => {
    if (this.quitting === 'stopped') return;
    event.preventDefault();
    if (this.quitting === 'stopping') return;
    this.quitting = 'stopping';
    setTimeout(() => this.deps.exit(1), this.deps.quitDeadlineMs ?? 10_000);
    void this.deps
      .stop()
      .catch((error: unknown) => this.deps.logger.error('the server did not stop cleanly', { error }))
      .finally(() => {
        this.quitting = 'stopped';
        this.tray?.destroy();
        this.deps.quit();
      });
  };
}
