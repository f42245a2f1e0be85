import { describe, expect, it, vi } from 'vitest';
import { DesktopShell, type ShellDeps } from '../../../electron/main/desktop-shell';

/** A window or tray stand-in: Electron's objects say whether they are destroyed and can be. */
class StandIn {
  destroyed = false;
  isDestroyed(): boolean {
    return this.destroyed;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

/** A shell whose server stop settles when the test says so. */
function shellWith(deps: Partial<ShellDeps> = {}) {
  let settle: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  const stop = vi.fn(
    () =>
      new Promise<void>((resolve, reject) => {
        settle = { resolve, reject };
      }),
  );
  const quit = vi.fn();
  const exit = vi.fn();
  const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const shell = new DesktopShell<StandIn, StandIn>({ stop, quit, exit, logger, quitDeadlineMs: 60_000, ...deps });
  const event = () => ({ preventDefault: vi.fn() });
  return { shell, stop, quit, exit, logger, event, settle: () => settle! };
}

/** Lets promise callbacks (`finally`) run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('desktop shell state', () => {
  it('holds a quit back until the server has stopped, stopping it once, then lets it through', async () => {
    const { shell, stop, quit, exit, event, settle } = shellWith();
    const tray = new StandIn();
    shell.tray = tray;

    const first = event();
    shell.beforeQuit(first);
    expect(first.preventDefault).toHaveBeenCalled();
    expect(stop).toHaveBeenCalledTimes(1);

    // Quit asked again (the tray, a signal) while stopping: still held, no second stop.
    const second = event();
    shell.beforeQuit(second);
    expect(second.preventDefault).toHaveBeenCalled();
    expect(stop).toHaveBeenCalledTimes(1);
    expect(quit).not.toHaveBeenCalled();

    settle().resolve();
    await settled();
    expect(tray.isDestroyed()).toBe(true);
    expect(quit).toHaveBeenCalledTimes(1);
    expect(exit).not.toHaveBeenCalled();

    // The quit the shell asked for comes back through before-quit and goes through.
    const last = event();
    shell.beforeQuit(last);
    expect(last.preventDefault).not.toHaveBeenCalled();
    expect(stop).toHaveBeenCalledTimes(1);
  });

  it('quits after a stop that failed, and logs it', async () => {
    const { shell, quit, logger, event, settle } = shellWith();
    shell.beforeQuit(event());
    settle().reject(new Error('disk gone'));
    await settled();
    expect(quit).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith('the server did not stop cleanly', { error: new Error('disk gone') });
  });

  it('exits when the stop outlasts the deadline', async () => {
    const { shell, quit, exit, event } = shellWith({ quitDeadlineMs: 20 });
    shell.beforeQuit(event());
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(exit).toHaveBeenCalledWith(1);
    expect(quit).not.toHaveBeenCalled();
  });

  it('opens one port choice at a time, and a released one may open the next', async () => {
    const { shell } = shellWith();
    let answer: () => void = () => {};
    const opened: string[] = [];
    /** A choice that only notes that it opened. */
    const noting = (what: string) => () => {
      opened.push(what);
      return Promise.resolve();
    };
    const first = shell.choosePort(async (release) => {
      opened.push('first');
      await new Promise<void>((resolve) => (answer = resolve));
      release();
      // Starting again found the port taken once more: the dialog comes back.
      await shell.choosePort(noting('after release'));
    });
    // The tray's "Choose another port" while the dialog is open does nothing.
    await shell.choosePort(noting('while open'));
    answer();
    await first;
    expect(opened).toEqual(['first', 'after release']);
    // Done (even when a choice failed): the next one opens.
    await expect(shell.choosePort(() => Promise.reject(new Error('no free port')))).rejects.toThrow('no free port');
    await shell.choosePort(noting('next'));
    expect(opened).toEqual(['first', 'after release', 'next']);
  });

  it('offers the window and tray only while they are not destroyed', () => {
    const { shell } = shellWith();
    expect(shell.liveWindow()).toBeNull();
    const window = new StandIn();
    shell.window = window;
    expect(shell.liveWindow()).toBe(window);
    window.destroy();
    expect(shell.liveWindow()).toBeNull();
    // Destroyed but not yet told `closed`: still the window `showWindow` knows of.
    expect(shell.window).toBe(window);
    const tray = new StandIn();
    shell.tray = tray;
    expect(shell.liveTray()).toBe(tray);
    tray.destroy();
    expect(shell.liveTray()).toBeNull();
  });
});
