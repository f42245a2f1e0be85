import type { ErrorData } from '../../server/contract/errors';
import {
  OPERATION_NAMES,
  type CallContext,
  type GatewayHandlers,
  type IpcResult,
  type OperationName,
} from '../../server/contract/operations';
import { AppError } from '../../server/errors';
import { silentLogger, type Logger } from '../../server/logger';
import { ipcChannel } from '../ipc-channel';
import type { IpcSenderInfo } from './trusted-sender';

/**
 * Who the desktop window acts as in the audit log. The window is only reachable by whoever sits
 * at this machine's session, the local operator who installed and runs the gateway, so it needs
 * no sign-in and is recorded as `user:desktop`.
 */
export const DESKTOP_CONTEXT: CallContext = Object.freeze({ actor: 'user:desktop' });

/** The answer to a call from anything but the app window; the service is never reached. */
export const REFUSED: IpcResult<never> = Object.freeze({
  ok: false,
  code: 'forbidden',
  message: 'This window may not call the gateway',
});

const INTERNAL: ErrorData = {
  code: 'internal_error',
  message: 'Something went wrong inside the gateway; the log has the details',
};

/** The part of Electron's `ipcMain` that is used; a test passes a recorder. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcSenderInfo, input: unknown) => Promise<IpcResult<unknown>>): void;
}

/**
 * Runs one operation and turns its outcome into data: an `ipcMain.handle` that throws loses
 * every field but the message, so failures travel as `{ok:false, code, message, errors?}`.
 * Errors that are not AppErrors are bugs: logged here in full, sent without stack or wording.
 */
export async function toIpcResult<T>(
  operation: OperationName,
  run: () => Promise<T>,
  logger: Logger = silentLogger,
): Promise<IpcResult<T>> {
  try {
    return { ok: true, data: await run() };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, ...error.toData() };
    logger.error('IPC operation failed', { operation, error });
    return { ok: false, ...INTERNAL };
  }
}

/**
 * Binds every contract operation to `gateway:<operation>` and nothing else. The list comes from
 * OPERATION_NAMES (the keys of the admin route table, which `satisfies` keeps complete), and `handlers`
 * is the typed GatewayHandlers table; a test compares the bound channels with both. Each call
 * is checked against the app window before the service sees its input.
 */
export function bindIpc(
  ipcMain: IpcMainLike,
  handlers: GatewayHandlers,
  isTrustedSender: (event: IpcSenderInfo) => boolean,
  logger: Logger = silentLogger,
): void {
  for (const name of OPERATION_NAMES) {
    ipcMain.handle(ipcChannel(name), (event, input) => {
      if (!isTrustedSender(event)) {
        logger.warn('refused an IPC call from an untrusted sender', { operation: name });
        return Promise.resolve(REFUSED);
      }
      return toIpcResult<unknown>(name, () => handlers[name](input, DESKTOP_CONTEXT), logger);
    });
  }
}
