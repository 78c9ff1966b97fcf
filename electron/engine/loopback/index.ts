// The guards of the loopback HTTP servers the workbench opens, web mode (electron/server) and
// `envace mcp serve` (mcp-serve/http.ts): bound to a loopback address only, the Host header must
// name the server (DNS rebinding), browsers' Origin must be its own, and tokens are compared in
// constant time. One module below both, so neither imports the other.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAMES = new Set(['::1', 'localhost']);
const LOOPBACK_V4 = /^127\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)$/;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || LOOPBACK_V4.test(host);
}

export function tokensEqual(given: string | null | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The `host:port` names this server answers to: the loopback names plus the address it was
 * actually bound to (`--host 127.0.0.2` must accept the URL it prints).
 */
export function allowedAuthorities(boundHost: string, port: number): string[] {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', boundHost.includes(':') ? `[${boundHost}]` : boundHost]);
  return [...names].map((name) => `${name.toLowerCase()}:${port}`);
}

/**
 * The Host header must name this server on loopback: a page on another site that rebinds
 * its DNS name to 127.0.0.1 still sends its own name, and is refused here.
 */
export function hostHeaderAllowed(req: Pick<IncomingMessage, 'headers'>, authorities: readonly string[]): boolean {
  const host = req.headers.host;
  return typeof host === 'string' && authorities.includes(host.toLowerCase());
}

/** Browsers send Origin on WebSocket upgrades; only our own page may connect. */
export function originAllowed(req: Pick<IncomingMessage, 'headers'>, authorities: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true; // non-browser clients (CLI, tests) send none
  return typeof origin === 'string' && authorities.some((authority) => origin.toLowerCase() === `http://${authority}`);
}
