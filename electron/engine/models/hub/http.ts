import { HubError } from './errors';

export const DEFAULT_ENDPOINT = 'https://huggingface.co';

export interface HubConnection {
  /** Base URL of the Hub (HF_ENDPOINT), without a trailing slash. */
  endpoint: string;
  /** HF_TOKEN: sent as a bearer token; fetch drops it on a cross-origin redirect (the CDN needs none). */
  token?: string;
  signal?: AbortSignal;
}

/** The endpoint a pull talks to: the caller's, else HF_ENDPOINT, else the real Hub. */
export function hubEndpoint(explicit?: string): string {
  const chosen = explicit ?? process.env.HF_ENDPOINT ?? DEFAULT_ENDPOINT;
  let url: URL;
  try {
    url = new URL(chosen);
  } catch {
    throw new HubError('BAD_ENDPOINT', `the Hub endpoint ${JSON.stringify(chosen)} is not a URL (HF_ENDPOINT)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new HubError('BAD_ENDPOINT', `the Hub endpoint ${chosen} must be http(s) (HF_ENDPOINT)`);
  return chosen.replace(/\/+$/, '');
}

/** A network failure that never reached an HTTP answer: the Hub is unreachable from here. */
export class NetworkFailure extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach ${url} (${reason})`);
    this.name = 'NetworkFailure';
  }
}

/** The typed error for a Hub that cannot be reached; `cached`: what a pull could use offline instead. */
export function unreachableError(conn: HubConnection, failure: NetworkFailure, cached?: readonly string[]): HubError {
  const offline = cached === undefined ? '' : `; cached models: ${cached.length ? cached.join(', ') : 'none'}`;
  return new HubError('UNREACHABLE', `cannot reach the Hugging Face Hub at ${conn.endpoint} (${failure.reason})${offline}`);
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** GET with the token, the Hub's errors turned into HubErrors; a failure before any answer is a NetworkFailure. */
export async function hubGet(conn: HubConnection, url: string, headers: Record<string, string> = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { ...(conn.token ? { authorization: `Bearer ${conn.token}` } : {}), ...headers }, signal: conn.signal, redirect: 'follow' });
  } catch (error) {
    if (conn.signal?.aborted) throw error;
    throw new NetworkFailure(url, reasonOf(error));
  }
  if (res.ok || res.status === 416) return res;
  await res.body?.cancel();
  throw statusError(conn, url, res);
}

function statusError(conn: HubConnection, url: string, res: Response): HubError {
  // The Hub names the cause in X-Error-Code; a private repo answers 401 RepoNotFound to the anonymous.
  const code = res.headers.get('x-error-code') ?? '';
  const where = url.replace(/\?.*$/, '');
  if (res.status === 401) {
    if (!conn.token) {
      const what = code === 'GatedRepo' ? 'is gated' : code === 'RepoNotFound' ? 'does not exist or is private' : 'needs authentication';
      return new HubError('AUTH', `${where} ${what}: set HF_TOKEN to a Hugging Face access token that can read it (huggingface.co/settings/tokens)`);
    }
    return new HubError('AUTH', `${where} refused the token in HF_TOKEN (401${code ? ` ${code}` : ''}): check it has read access and has not expired`);
  }
  if (res.status === 403) {
    return new HubError('FORBIDDEN', `${where} refused access (403${code ? ` ${code}` : ''})${code === 'GatedRepo' ? ': accept the repo\'s terms on its Hub page with the account of HF_TOKEN' : ''}`);
  }
  if (res.status === 404) return new HubError('NOT_FOUND', `${where} was not found (${code || '404'})`);
  return new HubError('BAD_RESPONSE', `${where} answered HTTP ${res.status} ${res.statusText}`.trim());
}

async function jsonOf(conn: HubConnection, url: string, res: Response): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    throw new HubError('BAD_RESPONSE', `${url} did not answer JSON: is ${conn.endpoint} a Hugging Face Hub?`);
  }
}

/** The JSON body of a Hub API answer, or a typed error saying it was not JSON. */
export async function hubJson(conn: HubConnection, url: string): Promise<unknown> {
  return jsonOf(conn, url, await hubGet(conn, url));
}

/**
 * One page of a paginated Hub answer and the next page's URL (Link: <…>; rel="next"), which must stay
 * on the endpoint's origin: the token goes with it.
 */
export async function hubJsonPage(conn: HubConnection, url: string): Promise<{ body: unknown; next: string | null }> {
  const res = await hubGet(conn, url);
  const body = await jsonOf(conn, url, res);
  const link = /<([^>]+)>\s*;\s*rel="?next"?/.exec(res.headers.get('link') ?? '');
  if (!link) return { body, next: null };
  const next = new URL(link[1]!, url);
  if (next.origin !== new URL(conn.endpoint).origin) throw new HubError('BAD_RESPONSE', `${url} points its next page at another site (${next.origin}): refused`);
  return { body, next: next.href };
}
