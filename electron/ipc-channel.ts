import type { OperationName } from '../server/contract/operations';

/**
 * The IPC channel of one contract operation. Main (ipcMain.handle) and preload
 * (ipcRenderer.invoke) both derive channels from this one function, so they cannot drift apart.
 */
export const ipcChannel = <K extends OperationName>(name: K): `gateway:${K}` => `gateway:${name}`;
