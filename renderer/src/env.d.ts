import type { IpcBridge } from '../../server/contract/operations';

declare global {
  interface Window {
    /** The contract over IPC, exposed by the Electron preload; absent in the web admin. */
    api?: IpcBridge;
  }
}

export {};
