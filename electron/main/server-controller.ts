import { randomBytes } from 'node:crypto';
import type { ReaderStateChange } from '../../server/services/reader-watch';
import type { SettingsUpdateResult } from '../../server/contract/dto';
import {
  OPERATION_NAMES,
  type CallContext,
  type GatewayHandlers,
  type OperationName,
} from '../../server/contract/operations';
import { AppError } from '../../server/errors';
import { silentLogger, type Logger } from '../../server/logger';
import type { StartedGateway } from '../../server/start-gateway';
import { portInUseDetails } from './free-port';
import { DESKTOP_CONTEXT } from './ipc';

/** What the tray, the window title and the dialogs show. */
export type ServerState =
  | { kind: 'stopped' }
  | { kind: 'starting' }
  | { kind: 'running'; port: number; urls: string[] }
  | { kind: 'port_in_use'; port: number | null; host: string | null; message: string }
  | { kind: 'failed'; message: string }
  | { kind: 'stopping' };

export interface ControllerOptions {
  /**
   * Starts the gateway: `startGateway` over the user-data folder. `port` is given only when the
   * user picked another port after `port_in_use`; otherwise the stored setting applies.
   */
  start(options: { port?: number; adminPassword: string }): Promise<StartedGateway>;
  /** GATEWAY_ADMIN_PASSWORD when set: the operator chose it, so there is nothing to reveal. */
  adminPassword?: string;
  onChange?(state: ServerState): void;
  /** Called once when this process created the first admin, to show its password once. */
  onFirstAdmin?(admin: { username: string; password: string }): void;
  /** A reader turned silent or came back (SPEC §16); `silent` counts the silent readers now. */
  onReaderChange?(change: ReaderStateChange, silent: number): void;
  /** The desktop saved a new port or host: it applies on the next (re)start. */
  onRestartRequired?(settings: SettingsUpdateResult): void;
  logger?: Logger;
  now?: () => number;
}

export interface ServerController {
  state(): ServerState;
  /** The contract for IPC: forwards to the running gateway; answers `database_unavailable` otherwise. */
  readonly handlers: GatewayHandlers;
  start(port?: number): Promise<ServerState>;
  /** Stops (IPC calls and HTTP requests in flight finish) and starts again with the stored settings. */
  restart(): Promise<ServerState>;
  stop(): Promise<void>;
}

/**
 * Owns the embedded server's lifecycle for the desktop shell: starts it, keeps the state the UI
 * shows, restarts it, and stops it gracefully on quit. It never imports Electron, so tests drive
 * it with the real startGateway and a port that is really taken.
 */
export function createServerController(options: ControllerOptions): ServerController {
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const createdAfter = now();
  // One password per process, passed to every attempt: when the first start creates the admin
  // and then fails to listen, startGateway has already thrown its `firstAdmin` away, but this
  // copy still lets the next successful start show it.
  const adminPassword = options.adminPassword || randomBytes(18).toString('base64url');
  let revealPending = !options.adminPassword;
  let state: ServerState = { kind: 'stopped' };
  let running: StartedGateway | null = null;
  let starting: Promise<void> | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  const inFlight = new Set<Promise<unknown>>();

  const setState = (next: ServerState) => {
    state = next;
    options.onChange?.(next);
  };

  /** Lifecycle steps run one after another: a restart clicked during a start waits its turn. */
  const serialize = <T>(step: () => Promise<T>): Promise<T> => {
    const result = queue.then(step);
    queue = result.catch(() => undefined);
    return result;
  };

  const notRunning = (): AppError => {
    const reason =
      state.kind === 'port_in_use'
        ? `port ${state.port ?? ''} is in use; choose another port in the dialog or the tray menu`
        : state.kind === 'failed'
          ? state.message
          : state.kind;
    return new AppError('database_unavailable', `The gateway server is not running (${reason})`);
  };

  /** Runs a call on the running gateway, remembered so that a stop lets it finish first. */
  const runOn = <T>(call: (handlers: GatewayHandlers) => Promise<T>): Promise<T> => {
    if (!running) return Promise.reject(notRunning());
    const pending = call(running.gateway.handlers);
    inFlight.add(pending);
    void pending.finally(() => inFlight.delete(pending)).catch(() => undefined);
    return pending;
  };

  const forward =
    <K extends OperationName>(name: K) =>
    (input: unknown, context: CallContext) =>
      // Calls made while the server (re)starts, e.g. the window's first requests, wait for it.
      running || !starting
        ? runOn((handlers) => handlers[name](input, context))
        : starting.then(() => runOn((handlers) => handlers[name](input, context)));

  const forwarded = Object.fromEntries(OPERATION_NAMES.map((name) => [name, forward(name)])) as GatewayHandlers;
  const handlers: GatewayHandlers = {
    ...forwarded,
    async updateSettings(input, context) {
      const result = await forwarded.updateSettings(input, context);
      if (result.restartRequired) setImmediate(() => options.onRestartRequired?.(result));
      return result;
    },
  };

  /** Whether the admin that exists now was created by this process (with `adminPassword`). */
  const adminCreatedHere = async (gateway: StartedGateway['gateway']): Promise<boolean> => {
    if (gateway.firstAdmin) return true;
    const users = await gateway.handlers.listUsers(undefined, DESKTOP_CONTEXT);
    return users.some((user) => user.username === 'admin' && Date.parse(user.createdAt) >= createdAfter);
  };

  const doStart = async (port?: number): Promise<ServerState> => {
    if (running) return state;
    setState({ kind: 'starting' });
    try {
      const started = await options.start({ port, adminPassword });
      running = started;
      const watch = started.gateway.readerWatch;
      watch.onChange((change) => options.onReaderChange?.(change, watch.silentCount()));
      if (port !== undefined && started.gateway.deps.settings.current().port !== started.server.port) {
        // The port the user picked becomes the stored setting, so the next start uses it too.
        await started.gateway.handlers.updateSettings({ port: started.server.port }, DESKTOP_CONTEXT);
      }
      if (revealPending && (await adminCreatedHere(started.gateway))) {
        options.onFirstAdmin?.({ username: 'admin', password: adminPassword });
      }
      revealPending = false;
      setState({ kind: 'running', port: started.server.port, urls: started.urls });
    } catch (error) {
      if (running) {
        // Listening worked but a follow-up step failed: keep serving, report it.
        logger.error('desktop start follow-up failed', { error });
        setState({ kind: 'running', port: running.server.port, urls: running.urls });
      } else if (error instanceof AppError && error.code === 'port_in_use') {
        setState({ kind: 'port_in_use', ...portInUseDetails(error), message: error.message });
      } else {
        logger.error('the gateway server did not start', { error });
        setState({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
      }
    }
    return state;
  };

  const doStop = async (): Promise<void> => {
    const current = running;
    if (!current) return;
    running = null;
    setState({ kind: 'stopping' });
    await Promise.allSettled([...inFlight]);
    try {
      await current.stop();
    } finally {
      setState({ kind: 'stopped' });
    }
  };

  /** Marks a start in progress so that calls arriving meanwhile wait instead of failing. */
  const track = (pending: Promise<ServerState>): Promise<ServerState> => {
    const settled = pending.then(
      () => undefined,
      () => undefined,
    );
    starting = settled;
    void settled.then(() => {
      if (starting === settled) starting = null;
    });
    return pending;
  };

  return {
    state: () => state,
    handlers,
    start: (port) => track(serialize(() => doStart(port))),
    restart: () =>
      track(
        serialize(async () => {
          await doStop();
          return doStart();
        }),
      ),
    stop: () => serialize(doStop),
  };
}
