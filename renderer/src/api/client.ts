import { createClient, type WorkbenchApi } from '../../../electron/contract';
import { createIpcTransport, type PreloadBridge } from './ipc-transport';
import { createWebSocketTransport, type WebSocketTransport } from './websocket-transport';

declare global {
  interface Window {
    /** Present in the Electron window (electron/preload); absent in web mode. */
    workbench?: PreloadBridge;
  }
}

export interface Connection {
  api: WorkbenchApi;
  transport: 'ipc' | 'websocket';
  /** Web mode only: socket state for the "reconnecting" banner. */
  socket?: WebSocketTransport;
}

/** One WorkbenchApi, two transports: IPC in the desktop window, WebSocket in web mode. */
export function connect(): Connection {
  if (window.workbench) return { api: createClient(createIpcTransport(window.workbench)), transport: 'ipc' };
  const url = new URL('api', window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = ''; // the session token travels as the HttpOnly cookie set with the page
  url.hash = '';
  const socket = createWebSocketTransport(() => new WebSocket(url.toString()));
  return { api: createClient(socket), transport: 'websocket', socket };
}
