import { z } from 'zod';
import { HubError } from './errors';
import { type HubConnection, hubJson, hubJsonPage } from './http';

/** A model repo lists hundreds of files at most; a tree past this is not one a pull should walk. */
export const MAX_TREE_ENTRIES = 20_000;
/** The Hub pages a recursive tree (Link: rel="next"); pages past this mean a runaway server. */
const MAX_TREE_PAGES = 50;

// Only the fields a pull reads; the Hub sends many more, which pass through unread.
const ModelInfo = z.object({ id: z.string().optional(), sha: z.string().regex(/^[0-9a-f]{40}$/), gated: z.unknown().optional() });
const TreeEntry = z.object({
  type: z.enum(['file', 'directory']),
  path: z.string(),
  size: z.number().int().nonnegative().optional(),
  oid: z.string().optional(),
  lfs: z.object({ oid: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() }).optional(),
});
const SearchHit = z.object({
  id: z.string(),
  downloads: z.number().optional(),
  likes: z.number().optional(),
  gated: z.unknown().optional(),
  pipeline_tag: z.string().optional(),
  lastModified: z.string().optional(),
});

/** One file of a repo at a commit: its size and what its bytes must hash to. */
export interface RepoFile {
  path: string;
  size: number;
  /** LFS files: the sha256 of the content (tree's lfs.oid). */
  sha256?: string;
  /** Plain git files: the git blob sha1 (tree's oid). */
  gitOid?: string;
}

export interface SearchResult {
  id: string;
  downloads: number;
  likes: number;
  gated: boolean;
  pipelineTag: string | null;
  lastModified: string | null;
}

const enc = encodeURIComponent;
const repoPath = (repo: string) => repo.split('/').map(enc).join('/');

function parse<T>(schema: z.ZodType<T>, value: unknown, url: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HubError('BAD_RESPONSE', `${url} answered JSON that is not the Hub's (${parsed.error.issues[0]?.message ?? 'bad shape'})`);
  return parsed.data;
}

/** The commit a revision (branch, tag or commit) points at now. */
export async function resolveCommit(conn: HubConnection, repo: string, revision: string): Promise<string> {
  const url = `${conn.endpoint}/api/models/${repoPath(repo)}/revision/${enc(revision)}`;
  return parse(ModelInfo, await hubJson(conn, url), url).sha;
}

/**
 * Why a path from the Hub's tree is unsafe to hold on disk, or null: relative, '/'-separated, no empty,
 * '.' or '..' segment, no backslash, drive colon or control character. The Hub never sends such a
 * path; a server that does is refused as a whole rather than trusted for its other entries.
 */
export function treePathProblem(p: string): string | null {
  if (p.length === 0 || p.length > 1024) return 'empty or longer than 1024 characters';
  if (p.startsWith('/')) return 'absolute';
  if (/[\\:\u0000-\u001f\u007f]/.test(p)) return 'holds a backslash, a colon or a control character';
  if (p.split('/').some((seg) => seg === '' || seg === '.' || seg === '..')) return "has an empty, '.' or '..' segment";
  return null;
}

/** Every file of the repo at a commit (recursive, every page), with sizes and hashes; unsafe paths refused. */
export async function listFiles(conn: HubConnection, repo: string, commit: string): Promise<RepoFile[]> {
  let url: string | null = `${conn.endpoint}/api/models/${repoPath(repo)}/tree/${enc(commit)}?recursive=true`;
  const entries: Array<z.infer<typeof TreeEntry>> = [];
  for (let page = 0; url !== null; page++) {
    if (page === MAX_TREE_PAGES) throw new HubError('BAD_RESPONSE', `the tree of ${repo} runs past ${MAX_TREE_PAGES} pages: refused`);
    const { body, next } = await hubJsonPage(conn, url);
    entries.push(...parse(z.array(TreeEntry), body, url));
    if (entries.length > MAX_TREE_ENTRIES) throw new HubError('BAD_RESPONSE', `the tree of ${repo} lists more than ${MAX_TREE_ENTRIES} entries: not a model repo a pull walks`);
    url = next;
  }
  for (const e of entries) {
    const problem = treePathProblem(e.path);
    if (problem) throw new HubError('BAD_RESPONSE', `the Hub's tree of ${repo} lists the path ${JSON.stringify(e.path.slice(0, 200))}, which is ${problem}: refused`);
  }
  return entries
    .filter((e) => e.type === 'file')
    .map((e) => (e.lfs ? { path: e.path, size: e.lfs.size, sha256: e.lfs.oid } : { path: e.path, size: e.size ?? 0, gitOid: e.oid }));
}

/** The download URL of one file; the Hub redirects LFS files to its CDN. */
export function resolveUrl(conn: HubConnection, repo: string, commit: string, path: string): string {
  return `${conn.endpoint}/${repoPath(repo)}/resolve/${enc(commit)}/${path.split('/').map(enc).join('/')}`;
}

/** Text-generation models matching `query`, most downloaded first. */
export async function searchModels(conn: HubConnection, query: string, limit: number): Promise<SearchResult[]> {
  const url = `${conn.endpoint}/api/models?search=${enc(query)}&limit=${limit}&sort=downloads&direction=-1&filter=safetensors&pipeline_tag=text-generation`;
  return parse(z.array(SearchHit), await hubJson(conn, url), url).map((h) => ({
    id: h.id,
    downloads: h.downloads ?? 0,
    likes: h.likes ?? 0,
    gated: h.gated !== undefined && h.gated !== false,
    pipelineTag: h.pipeline_tag ?? null,
    lastModified: h.lastModified ?? null,
  }));
}
