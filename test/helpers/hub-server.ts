// A local HTTP server shaped like the Hugging Face Hub's API (model info, recursive tree with LFS
// metadata, resolve with a redirect to a "CDN", Range requests, search), so Hub pulls are tested
// without the internet. Switches: cut a file's connection after N bytes, corrupt a file, gate a repo.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { encodeSafetensors, readSafetensors } from '../../native-models';

export interface HubRepo {
  commit: string;
  files: Map<string, Buffer>;
  /** Files served through LFS (sha256 in the tree, resolve redirects to the CDN). */
  lfs: Set<string>;
  /** A gated repo: only this bearer token reads it. */
  token?: string;
  /** Entries the tree lists besides the files (a hostile server's paths); never served. */
  extraTree?: Array<Record<string, unknown>>;
}

export interface HubServer {
  url: string;
  repos: Map<string, HubRepo>;
  /** Every request: path, Range and Authorization headers. */
  requests: Array<{ path: string; range: string | null; auth: string | null }>;
  /** The next download of this file stops after this many bytes (the socket is destroyed). */
  cutOnce: Map<string, number>;
  /** Served with one byte flipped; the tree keeps the true hash. */
  corrupt: Set<string>;
  /** Served with this many bytes more than the tree lists. */
  padded: Map<string, number>;
  /** Tree entries per page (Link: rel="next" with a cursor, as the Hub pages); null: one page. */
  treePageSize: number | null;
  close(): Promise<void>;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const gitOid = (b: Buffer) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

/**
 * A Hub repo from an HF folder (as native-models' exporter writes it), its weights split into two
 * shards with an index, as the Hub holds models above a few GB.
 */
export function repoFromFolder(dir: string, commit: string, extra: Record<string, Buffer | string> = {}): HubRepo {
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(dir)) if (name !== 'model.safetensors') files.set(name, readFileSync(join(dir, name)));
  const { tensors } = readSafetensors(join(dir, 'model.safetensors'));
  const names = [...tensors.keys()].sort();
  const shardNames = ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors'];
  const weightMap: Record<string, string> = {};
  const half = Math.ceil(names.length / 2);
  shardNames.forEach((shard, i) => {
    const part = names.slice(i * half, (i + 1) * half);
    for (const n of part) weightMap[n] = shard;
    files.set(shard, Buffer.from(encodeSafetensors(new Map(part.map((n) => [n, tensors.get(n)!])))));
  });
  files.set('model.safetensors.index.json', Buffer.from(JSON.stringify({ metadata: {}, weight_map: weightMap })));
  for (const [k, v] of Object.entries(extra)) files.set(k, Buffer.isBuffer(v) ? v : Buffer.from(v));
  return { commit, files, lfs: new Set([...files.keys()].filter((f) => /\.(safetensors|bin)$/.test(f))) };
}

export async function startHubServer(repos: Record<string, HubRepo>): Promise<HubServer> {
  const state: HubServer = { url: '', repos: new Map(Object.entries(repos)), requests: [], cutOnce: new Map(), corrupt: new Set(), padded: new Map(), treePageSize: null, close: async () => {} };
  const lfsBlobs = () => {
    const out = new Map<string, { repo: string; path: string }>();
    for (const [id, r] of state.repos) for (const p of r.lfs) out.set(sha256(r.files.get(p)!), { repo: id, path: p });
    return out;
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const p = decodeURIComponent(url.pathname);
    state.requests.push({ path: p, range: req.headers.range ?? null, auth: req.headers.authorization ?? null });
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const access = (id: string): HubRepo | null => {
      const repo = state.repos.get(id);
      if (!repo) {
        json(401, { error: 'Repository not found' }, { 'x-error-code': 'RepoNotFound' });
        return null;
      }
      if (repo.token && req.headers.authorization !== `Bearer ${repo.token}`) {
        if (req.headers.authorization) json(403, { error: 'Access to this repo is restricted' }, { 'x-error-code': 'GatedRepo' });
        else json(401, { error: 'Access to this repo is restricted' }, { 'x-error-code': 'GatedRepo' });
        return null;
      }
      return repo;
    };
    let m: RegExpExecArray | null;
    if (p === '/api/models') {
      const q = (url.searchParams.get('search') ?? '').toLowerCase();
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const hits = [...state.repos.entries()].filter(([id]) => id.toLowerCase().includes(q)).slice(0, limit);
      return json(200, hits.map(([id, r]) => ({ id, downloads: r.files.size * 10, likes: 1, gated: r.token ? 'manual' : false, pipeline_tag: 'text-generation' })));
    }
    if ((m = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/(.+)$/.exec(p))) {
      const repo = access(m[1]!);
      if (!repo) return;
      if (m[2] !== 'main' && m[2] !== repo.commit) return json(404, { error: 'Invalid rev id' }, { 'x-error-code': 'RevisionNotFound' });
      return json(200, { id: m[1], sha: repo.commit, siblings: [...repo.files.keys()].map((rfilename) => ({ rfilename })) });
    }
    if ((m = /^\/api\/models\/([^/]+\/[^/]+)\/tree\/([^/]+)$/.exec(p))) {
      const repo = access(m[1]!);
      if (!repo) return;
      const entries: Array<Record<string, unknown>> = [
        ...[...repo.files.entries()].map(([path, b]) =>
          repo.lfs.has(path)
            ? { type: 'file', path, size: b.length, oid: gitOid(Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(b)}\n`)), lfs: { oid: sha256(b), size: b.length, pointerSize: 134 } }
            : { type: 'file', path, size: b.length, oid: gitOid(b) },
        ),
        ...(repo.extraTree ?? []),
      ];
      if (state.treePageSize === null) return json(200, entries);
      const from = Number(url.searchParams.get('cursor') ?? 0);
      const to = from + state.treePageSize;
      const next = new URL(req.url ?? '/', state.url);
      next.searchParams.set('cursor', String(to));
      return json(200, entries.slice(from, to), to < entries.length ? { link: `<${next.href}>; rel="next"` } : {});
    }
    if ((m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(p))) {
      const repo = access(m[1]!);
      if (!repo) return;
      const body = repo.files.get(m[3]!);
      if (!body) return json(404, { error: 'Entry not found' }, { 'x-error-code': 'EntryNotFound' });
      const common = { 'x-repo-commit': repo.commit, etag: `"${repo.lfs.has(m[3]!) ? sha256(body) : gitOid(body)}"` };
      if (repo.lfs.has(m[3]!)) {
        res.writeHead(302, { ...common, 'x-linked-etag': `"${sha256(body)}"`, 'x-linked-size': String(body.length), location: `/cdn/${sha256(body)}` });
        return res.end();
      }
      return sendBody(m[3]!, body);
    }
    if ((m = /^\/cdn\/([0-9a-f]{64})$/.exec(p))) {
      const blob = lfsBlobs().get(m[1]!);
      if (!blob) return json(404, { error: 'no such blob' });
      return sendBody(blob.path, state.repos.get(blob.repo)!.files.get(blob.path)!);
    }
    json(404, { error: `no route ${p}` });

    function sendBody(path: string, original: Buffer): void {
      let body = original;
      if (state.corrupt.has(path)) {
        body = Buffer.from(original);
        body[body.length >> 1] ^= 0xff;
      }
      const pad = state.padded.get(path);
      if (pad !== undefined) body = Buffer.concat([body, Buffer.alloc(pad, 0x41)]);
      const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      const start = range ? Number(range[1]) : 0;
      if (start > body.length) {
        res.writeHead(416, { 'content-range': `bytes */${body.length}` });
        return void res.end();
      }
      const slice = body.subarray(start);
      res.writeHead(range ? 206 : 200, {
        'content-length': String(slice.length),
        'accept-ranges': 'bytes',
        ...(range ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
      });
      const cut = state.cutOnce.get(path);
      if (cut !== undefined) {
        state.cutOnce.delete(path);
        // Flush the first bytes, then drop the connection as a flaky network would.
        res.write(slice.subarray(0, cut), () => setTimeout(() => res.socket?.destroy(), 20));
        return;
      }
      res.end(slice);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
  return state;
}

/** A port nothing listens on: connection refused, as when the Hub cannot be reached. */
export async function deadEndpoint(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}
