import { app, BrowserWindow, ipcMain, net, protocol, session } from 'electron';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EngineSupervisor } from './engine-supervisor';
import { EVENT_CHANNEL, registerIpcRouter } from './ipc-router';
import { APP_ORIGIN, APP_SCHEME, hardenWebContents, RENDERER_CSP, windowOptions } from './window';

// The entry point only composes: scheme, engine, IPC, window.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

const here = path.dirname(fileURLToPath(import.meta.url));
const rendererRoot = path.join(here, '../renderer');

function serveRenderer(): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const { pathname } = new URL(request.url);
    const file = path.normalize(path.join(rendererRoot, pathname === '/' ? 'index.html' : decodeURIComponent(pathname)));
    if (!file.startsWith(rendererRoot)) return new Response('not found', { status: 404 });
    const response = await net.fetch(pathToFileURL(file).toString());
    const headers = new Headers(response.headers);
    headers.set('Content-Security-Policy', RENDERER_CSP);
    return new Response(response.body, { status: response.status, headers });
  });
}

function broadcast(event: string, payload: unknown): void {
  for (const window of BrowserWindow.getAllWindows()) window.webContents.send(EVENT_CHANNEL, event, payload);
}

app.enableSandbox();

app.whenReady().then(() => {
  serveRenderer();
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));

  const supervisor = new EngineSupervisor({
    entry: path.join(here, 'engine.js'),
    home: process.env.ENVACE_HOME ?? path.join(app.getPath('userData'), 'data'),
    onEvent: broadcast,
    onStatus: (state, message) => broadcast('engine.status', { state, message }),
  });
  supervisor.start();
  registerIpcRouter(ipcMain, (method, input) => supervisor.link.request(method, input));

  const window = new BrowserWindow(windowOptions(path.join(here, '../preload/index.cjs')));
  hardenWebContents(window.webContents);
  window.once('ready-to-show', () => window.show());
  void window.loadURL(`${APP_ORIGIN}/index.html`);

  app.on('window-all-closed', () => {
    supervisor.stop();
    app.quit();
  });
});
