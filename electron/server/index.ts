import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { DEFAULT_JSON_BOUNDS, parseBoundedJson } from '../../native-models/io';
import { MAX_FRAME_BYTES, RequestFrame, type Result, type ServerFrame } from '../contract';
import type { Engine } from '../engine/host';
import { allowedAuthorities, hostHeaderAllowed, isLoopbackHost, originAllowed, tokensEqual } from '../engine/loopback';
import { contentSecurityPolicy, cookieToken, TOKEN_COOKIE } from './security';
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
  constructor(
    message: string,
    /** `bad_host` is the caller's mistake (a usage error); `port_in_use` is the machine's state. */
    readonly reason: 'bad_host' | 'port_in_use',
  ) {
    super(message);
    this.name = 'ServeError';
  }
}

/**
 * The request target as a URL on our own origin, or null. `new URL('//', base)` throws, and an
 * unauthenticated `GET //` must not take the process (and any training in it) down; prefixing
 * our origin also keeps `//evil.example/x` a path rather than another host.
 */
function requestUrl(req: http.IncomingMessage): URL | null {
  const target = req.url ?? '/';
  try {
    return new URL(`http://127.0.0.1${target.startsWith('/') ? '' : '/'}${target}`);
  } catch {
    return null;
  }
}

/**
 * Web mode: the built renderer over HTTP and the contract over a WebSocket, on loopback
 * only, behind a random session token that the printed URL carries.
 */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new ServeError(`web mode listens on loopback only; refusing host "${host}"`, 'bad_host');
  const token = options.token ?? randomBytes(24).toString('base64url');
  const staticDir = path.resolve(options.staticDir);
  let port = options.port ?? 0;
  let authorities: string[] = [];

  const authorized = (req: http.IncomingMessage, url: URL) => tokensEqual(url.searchParams.get('token'), token) || tokensEqual(cookieToken(req), token);

  const server = http.createServer((req, res) => {
    const url = requestUrl(req);
    const securityHeaders = {
      'Content-Security-Policy': contentSecurityPolicy(authorities),
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    };
    if (!hostHeaderAllowed(req, authorities)) {
      res.writeHead(403, { 'Content-Type': 'text/plain', ...securityHeaders }).end('forbidden: unexpected Host header');
      return;
    }
    if (!url) {
      res.writeHead(400, { 'Content-Type': 'text/plain', ...securityHeaders }).end('bad request target');
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
    // A file removed between the lookup and the read ends this response, not the process.
    else fs.createReadStream(found.file).on('error', () => res.destroy()).pipe(res);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  server.on('upgrade', (req, socket, head) => {
    const url = requestUrl(req);
    const refuse = (status: string) => {
      socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
    };
    if (url?.pathname !== '/api') return refuse('404 Not Found');
    if (!hostHeaderAllowed(req, authorities) || !originAllowed(req, authorities)) return refuse('403 Forbidden');
    if (!authorized(req, url)) return refuse('401 Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => attach(ws, options.engine));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new ServeError(`port ${options.port} is in use; pick another with --port`, 'port_in_use') : error),
    );
    server.listen(options.port ?? 0, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  authorities = allowedAuthorities(host, port);
  const shownHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    host,
    token,
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Node 20's close() waits on sockets that never sent a request, which Chromium opens
      // speculatively (nodejs/node#63452): responses in flight get a moment, then every socket goes.
      const cutOff = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
      await closed;
      clearTimeout(cutOff);
    },
  };
}

/** How long close() lets responses in flight finish before it drops every socket. */
const CLOSE_GRACE_MS = 500;

/** A frame wraps its input one level deeper than the engine's own bound on inputs. */
const FRAME_BOUNDS = { maxChars: MAX_FRAME_BYTES, maxDepth: DEFAULT_JSON_BOUNDS.maxDepth + 1 };

/** One socket: requests go through the engine's validated dispatch; events are pushed. */
function attach(ws: WebSocket, engine: Engine): void {
  const send = (frame: ServerFrame) => {
    if (ws.readyState !== ws.OPEN) return;
    try {
      ws.send(JSON.stringify(frame));
    } catch (error) {
      // An unsendable frame is a bug to log; throwing here would reach the engine's event bus.
      console.error('[serve] could not send a frame:', error);
    }
  };
  const unsubscribe = engine.subscribe((event, payload) => send({ type: 'event', event, payload }));
  ws.on('close', unsubscribe);
  ws.on('error', unsubscribe);
  ws.on('message', async (data, isBinary) => {
    let frame: RequestFrame;
    try {
      if (isBinary) throw new Error('binary frames are not part of the protocol');
      const parsed = RequestFrame.safeParse(parseBoundedJson(String(data), FRAME_BOUNDS, 'the frame'));
      if (!parsed.success) throw new Error('a request frame is {type:"request", id, method, input}');
      frame = parsed.data;
    } catch (error) {
      send({ type: 'response', id: null, result: { ok: false, error: { code: 'invalid_input', message: `bad frame: ${(error as Error).message}` } } });
      return;
    }
    // dispatch never throws by contract; the catch keeps a broken promise from being unhandled.
    const result = await engine.dispatch(frame.method, frame.input, { transport: 'websocket' }).catch(
      (error: unknown): Result<unknown> => ({ ok: false, error: { code: 'internal', message: `${frame.method} failed: ${String(error)}` } }),
    );
    send({ type: 'response', id: frame.id, result });
  });
}
