/**
 * Streamable HTTP for a served environment, guarded as web mode is (engine/loopback):
 * loopback only, the Host header must name this server (DNS rebinding), browsers' Origin must be
 * ours, and every request carries the random token (Authorization: Bearer, or ?token= in the URL
 * the command prints). Each MCP session gets its own SDK server; episodes are the book's, addressed
 * by id from any session, and outlive the session that started them (a client may open a session
 * per call). Sessions are capped, the longest idle one closed to admit a new one.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { allowedAuthorities, hostHeaderAllowed, isLoopbackHost, originAllowed, tokensEqual } from '../loopback';
import type { EpisodeBook } from './episodes';
import { sessionServer } from './server';

export const MCP_PATH = '/mcp';
export const DEFAULT_MAX_SESSIONS = 32;

export class McpHttpError extends Error {
  constructor(
    message: string,
    /** `bad_host` is the caller's mistake (a usage error); `port_in_use` is the machine's state. */
    readonly reason: 'bad_host' | 'port_in_use',
  ) {
    super(message);
    this.name = 'McpHttpError';
  }
}

export interface McpHttpOptions {
  port?: number;
  host?: string;
  /** Fixed token (tests); a random one otherwise. */
  token?: string;
  maxSessions?: number;
}

export interface RunningMcpHttp {
  /** The endpoint with the token, as a client should be given it. */
  url: string;
  port: number;
  token: string;
  sessionCount(): number;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastUsed: number;
}

function bearer(req: http.IncomingMessage): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m ? m[1] : null;
}

/** The request target on our own origin, or null; a malformed target must not throw. */
function requestUrl(req: http.IncomingMessage): URL | null {
  try {
    return new URL(`http://127.0.0.1${(req.url ?? '/').startsWith('/') ? '' : '/'}${req.url ?? '/'}`);
  } catch {
    return null;
  }
}

function refuse(res: http.ServerResponse, status: number, message: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...extra }).end(`${message}\n`);
}

export async function serveHttp(book: EpisodeBook, opts: McpHttpOptions = {}): Promise<RunningMcpHttp> {
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new McpHttpError(`envace mcp serve listens on loopback only; refusing host "${host}"`, 'bad_host');
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const sessions = new Map<string, Session>();
  let authorities: string[] = [];
  let clock = 0;

  const drop = async (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    book.endSession(`http:${id}`);
    await s.server.close().catch(() => undefined);
  };

  const open = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    while (sessions.size >= maxSessions) {
      const oldest = [...sessions.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      await drop(oldest[0]);
    }
    // Our id, known before the SDK announces it, so that the session's episodes are keyed by it.
    const id = randomUUID();
    const server = sessionServer(book, `http:${id}`);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => void sessions.set(id, { transport, server, lastUsed: ++clock }),
      onsessionclosed: () => drop(id),
    });
    transport.onclose = () => void drop(id);
    await server.connect(transport);
    await transport.handleRequest(req, res);
    // Anything but an initialize request was refused by the transport: nothing to keep.
    if (!sessions.has(id)) await server.close().catch(() => undefined);
  };

  const listener = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = requestUrl(req);
    if (!hostHeaderAllowed(req, authorities) || !originAllowed(req, authorities)) return refuse(res, 403, 'forbidden: unexpected Host or Origin header');
    if (!url || url.pathname !== MCP_PATH) return refuse(res, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
    if (!tokensEqual(bearer(req), token) && !tokensEqual(url.searchParams.get('token'), token)) {
      return refuse(res, 401, 'unauthorized: use the URL printed by `envace mcp serve` (it carries the token), or send it as Authorization: Bearer', { 'WWW-Authenticate': 'Bearer' });
    }
    const sid = req.headers['mcp-session-id'];
    if (typeof sid !== 'string') return open(req, res);
    const session = sessions.get(sid);
    if (!session) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    session.lastUsed = ++clock;
    await session.transport.handleRequest(req, res);
  };

  const server = http.createServer((req, res) => {
    listener(req, res).catch((error: unknown) => {
      if (!res.headersSent) refuse(res, 500, `internal error: ${error instanceof Error ? error.message : String(error)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new McpHttpError(`port ${opts.port} is in use; pick another with --port`, 'port_in_use') : error),
    );
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  authorities = allowedAuthorities(host, port);
  const shownHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${port}${MCP_PATH}?token=${token}`,
    port,
    token,
    sessionCount: () => sessions.size,
    async close() {
      await Promise.all([...sessions.keys()].map(drop));
      await book.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
