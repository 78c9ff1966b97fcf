// Web mode's own parts of its guard: the session token's cookie and the page's Content-Security-Policy.
// The loopback, Host, Origin and token checks it shares with `envace mcp serve` are engine/loopback.
import type { IncomingMessage } from 'node:http';

export const TOKEN_COOKIE = 'envace_token';

/**
 * The session token from the Cookie header. Anyone can send this header before being
 * authenticated, so nothing here may throw: a value that is not valid percent-encoding is no
 * token at all (our own Set-Cookie only ever writes encodeURIComponent output).
 */
export function cookieToken(req: Pick<IncomingMessage, 'headers'>): string | null {
  const header = req.headers.cookie;
  if (typeof header !== 'string') return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== TOKEN_COOKIE) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}

export function contentSecurityPolicy(authorities: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Editor and chart libraries inject <style> elements at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${authorities.map((authority) => `ws://${authority}`).join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
  ].join('; ');
}
