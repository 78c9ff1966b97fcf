import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_FRAME_BYTES, RequestFrame, type ServerFrame } from '../contract';
import type { Engine } from '../engine/host';
import { contentSecurityPolicy, cookieToken, hostHeaderAllowed, isLoopbackHost, originAllowed, TOKEN_COOKIE, tokensEqual } from './security';
import { resolveStatic } from './static';

export interface ServeOptions {
  engine: Engine;
  /** Folder with the built renderer (index.html + assets). */
  staticDir: string;
  port?: number;
  host?: string;
  /** Fixed token (tests); a random one otherwise. */
  token?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  host: string;
  token: string;
  close(): Promise<void>;
}

export class ServeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServeError';
  }
}

/**
 * Web mode: the built renderer over HTTP and the contract over a WebSocket, on loopback
 * only, behind a random session token that the printed URL carries.
 */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new ServeError(`web mode listens on loopback only; refusing host "${host}"`);
  const token = options.token ?? randomBytes(24).toString('base64url');
  const staticDir = path.resolve(options.staticDir);
  let port = options.port ?? 0;

  const authorized = (req: http.IncomingMessage, url: URL) => tokensEqual(url.searchParams.get('token'), token) || tokensEqual(cookieToken(req), token);

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const securityHeaders = {
      'Content-Security-Policy': contentSecurityPolicy(port),
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    };
    if (!hostHeaderAllowed(req, port)) {
      res.writeHead(403, { 'Content-Type': 'text/plain', ...securityHeaders }).end('forbidden: unexpected Host header');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', ...securityHeaders }).end();
      return;
    }
    if (!authorized(req, url)) {
      res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8', ...securityHeaders }).end('unauthorized: open the URL printed by `envace serve` (it carries the session token)\n');
      return;
    }
    const headers: Record<string, string> = { ...securityHeaders };
    if (url.searchParams.has('token')) {
      // The page's own asset and WebSocket requests carry the token as a cookie from here on.
      headers['Set-Cookie'] = `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
    }
    if (!fs.existsSync(path.join(staticDir, 'index.html'))) {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', ...headers }).end('the renderer is not built yet: run `npm run build:renderer`\n');
      return;
    }
    // Client-side routes fall back to index.html.
    const found = resolveStatic(staticDir, url.pathname) ?? (path.extname(url.pathname) ? null : resolveStatic(staticDir, '/'));
    if (!found) {
      res.writeHead(404, { 'Content-Type': 'text/plain', ...headers }).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': found.type, ...headers });
    if (req.method === 'HEAD') res.end();
    else fs.createReadStream(found.file).pipe(res);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const refuse = (status: string) => {
      socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
    };
    if (url.pathname !== '/api') return refuse('404 Not Found');
    if (!hostHeaderAllowed(req, port) || !originAllowed(req, port)) return refuse('403 Forbidden');
    if (!authorized(req, url)) return refuse('401 Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => attach(ws, options.engine));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new ServeError(`port ${options.port} is in use; pick another with --port`) : error),
    );
    server.listen(options.port ?? 0, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    host,
    token,
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One socket: requests go through the engine's validated dispatch; events are pushed. */
function attach(ws: WebSocket, engine: Engine): void {
  const send = (frame: ServerFrame) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  };
  const unsubscribe = engine.subscribe((event, payload) => send({ type: 'event', event, payload }));
  ws.on('close', unsubscribe);
  ws.on('error', unsubscribe);
  ws.on('message', async (data, isBinary) => {
    let frame: RequestFrame;
    try {
      if (isBinary) throw new Error('binary frames are not part of the protocol');
      const parsed = RequestFrame.safeParse(JSON.parse(String(data)));
      if (!parsed.success) throw new Error('a request frame is {type:"request", id, method, input}');
      frame = parsed.data;
    } catch (error) {
      send({ type: 'response', id: null, result: { ok: false, error: { code: 'invalid_input', message: `bad frame: ${(error as Error).message}` } } });
      return;
    }
    const result = await engine.dispatch(frame.method, frame.input, { transport: 'websocket' });
    send({ type: 'response', id: frame.id, result });
  });
}
