import type { IpcRenderer } from 'electron';
import { OPERATION_NAMES, type IpcBridge, type OperationName } from '../../server/contract/operations';
import { ipcChannel } from '../ipc-channel';

/**
 * The renderer's `window.api`: one method per contract operation, each a single
 * `ipcRenderer.invoke('gateway:<operation>', input)` answering an IpcResult. Built from
 * OPERATION_NAMES, so it has exactly the contract's operations; its type is the contract's
 * IpcBridge, not a hand-written declaration. Nothing else of ipcRenderer reaches the page.
 */
export function buildBridge(ipcRenderer: Pick<IpcRenderer, 'invoke'>): IpcBridge {
  const bridge: Partial<Record<OperationName, (input: unknown) => Promise<unknown>>> = {};
  for (const name of OPERATION_NAMES) {
    bridge[name] = (input) => ipcRenderer.invoke(ipcChannel(name), input) as Promise<unknown>;
  }
  // Every operation is present (the loop covers OPERATION_NAMES); the cast only restores the
  // per-operation input/output types that a loop cannot express.
  return Object.freeze(bridge) as IpcBridge;
}
