import { contextBridge, ipcRenderer } from 'electron';
import { buildBridge } from './bridge';

// Runs sandboxed: bundled into one CommonJS file whose only run-time require is 'electron'.
contextBridge.exposeInMainWorld('api', buildBridge(ipcRenderer));
