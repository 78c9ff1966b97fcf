import { contextBridge, ipcRenderer } from 'electron';
import { buildBridge } from './bridge';

contextBridge.exposeInMainWorld('workbench', buildBridge(ipcRenderer));
