import fs from 'node:fs';
import path from 'node:path';
import { HfConfigError, parseHfConfig } from '../../../../native-models';
import { folderNameProblem } from '../../../contract/folder-name';
import { freeBytes } from '../../home/settings';
import { DEFAULT_MAX_IMPORT_BYTES } from '../registry';
import { type RepoFile, listFiles, resolveCommit, resolveUrl } from './api';
import { type Snapshot, cachedRefs, cachedSnapshot, commitSnapshot, snapshotDir } from './cache';
import { downloadFile } from './download';
import { HubError, parseRepoRef } from './errors';
import { isWantedFile, pullOrder } from './files';
import { type HubConnection, NetworkFailure, hubEndpoint, unreachableError } from './http';

export interface PullProgress {
  file: string;
  doneBytes: number;
  totalBytes: number;
}

export interface PullOptions {
  /** OWNER/NAME or OWNER/NAME@REVISION. */
  ref: string;
  revision?: string;
  cacheDir: string;
  /** Default HF_ENDPOINT, else https://huggingface.co. */
  endpoint?: string;
  /** Default HF_TOKEN. */
  token?: string;
  /** The most bytes a pull takes (default: what an import takes, 8 GiB). */
  maxBytes?: number;
  /** Use only the cache (default: HF_HUB_OFFLINE=1). */
  offline?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: PullProgress) => void;
}

export interface PullResult extends Snapshot {
  revision: string;
  /** True when nothing was downloaded: the snapshot came from the cache. */
  fromCache: boolean;
  downloadedBytes: number;
  /** Why the cache was used without asking the Hub (offline, unreachable). */
  note: string | null;
}

const envOffline = () => ['1', 'true', 'yes', 'on'].includes((process.env.HF_HUB_OFFLINE ?? '').toLowerCase());

/** A config.json the import cannot load is refused before the weights move (Llama/Qwen2/Qwen3 only). */
function checkConfig(repo: string, file: string): void {
  try {
    parseHfConfig(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch (error) {
    const why = error instanceof HfConfigError ? error.message : `config.json is not JSON (${(error as Error).message})`;
    throw new HubError('UNSUPPORTED', `${repo} cannot be imported: ${why}`);
  }
}

/** A model is a config, a tokenizer and its shards: a repo with more wanted files than this is not one. */
export const MAX_PULL_FILES = 256;
/** Config, tokenizer and index files are megabytes; only the weights are large. */
const MAX_SMALL_FILE_BYTES = 256 * 1024 ** 2;

function pickFiles(repo: string, commit: string, all: RepoFile[], maxBytes: number): RepoFile[] {
  const files = all.filter((f) => isWantedFile(f.path)).sort(pullOrder);
  const names = new Set(files.map((f) => f.path));
  if (!names.has('config.json')) throw new HubError('NOT_A_MODEL', `${repo}@${commit.slice(0, 12)} has no config.json at its top level: not a transformers model`);
  if (!files.some((f) => f.path.endsWith('.safetensors'))) {
    const pickled = all.some((f) => /\.(bin|pt|pth|ckpt)$/.test(f.path));
    throw new HubError('NOT_A_MODEL', `${repo} has no *.safetensors weights${pickled ? ' (only pickled PyTorch weights, which are never loaded here)' : ''}`);
  }
  if (!names.has('tokenizer.json')) throw new HubError('NOT_A_MODEL', `${repo} has no tokenizer.json (the import needs a fast tokenizer file)`);
  if (files.length > MAX_PULL_FILES) throw new HubError('TOO_LARGE', `${repo} has ${files.length} weight and config files, more than the ${MAX_PULL_FILES} a model pull takes`);
  for (const f of files) {
    // Each file becomes a file of the snapshot folder: the data home's one rule for names on disk.
    const problem = folderNameProblem(f.path, 'a file name from the Hub');
    if (problem) throw new HubError('BAD_RESPONSE', `${repo}: ${problem}`);
    if (!f.path.endsWith('.safetensors') && f.size > MAX_SMALL_FILE_BYTES) throw new HubError('TOO_LARGE', `${repo}: ${f.path} is ${f.size} bytes, more than a config or tokenizer file can be (${MAX_SMALL_FILE_BYTES})`);
  }
  const total = files.reduce((n, f) => n + f.size, 0);
  if (total > maxBytes) throw new HubError('TOO_LARGE', `${repo} is ${gib(total)} of weights and files, more than an import takes (${gib(maxBytes)})`);
  return files;
}

const gib = (n: number) => `${(n / 1024 ** 3).toFixed(2)} GiB`;

/** Refuse before the first byte when the disk cannot hold what is left to download. */
async function checkDisk(repo: string, dir: string, need: number): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const free = await freeBytes(dir);
  if (free !== null && free < need) throw new HubError('TOO_LARGE', `${repo} needs ${gib(need)} more on disk and ${dir} has ${gib(free)} free`);
}

/**
 * Pull a model repo's files (only those the import reads) into the Hub cache at the commit its revision
 * names now, resuming cut downloads and checking every file's hash; a revision already complete in the
 * cache is used as is, and so is any cached one when offline or when the Hub cannot be reached.
 */
export async function pullModel(opts: PullOptions): Promise<PullResult> {
  const { repo, revision } = parseRepoRef(opts.ref, opts.revision);
  const conn: HubConnection = { endpoint: hubEndpoint(opts.endpoint), token: opts.token ?? (process.env.HF_TOKEN || undefined), signal: opts.signal };
  const fromCache = (note: string | null): PullResult | null => {
    const snap = cachedSnapshot(opts.cacheDir, repo, revision);
    return snap ? { ...snap, revision, fromCache: true, downloadedBytes: 0, note } : null;
  };
  if (opts.offline ?? envOffline()) {
    const hit = fromCache('offline: used the cached snapshot without asking the Hub');
    if (hit) return hit;
    const cached = cachedRefs(opts.cacheDir);
    throw new HubError('NOT_CACHED', `offline, and ${repo}@${revision} was never pulled here; cached models: ${cached.length ? cached.join(', ') : 'none'}`);
  }
  try {
    return await pullOnline(conn, repo, revision, opts);
  } catch (error) {
    if (!(error instanceof NetworkFailure)) throw error;
    const hit = fromCache(`the Hub at ${conn.endpoint} could not be reached (${error.reason}): used the cached snapshot`);
    if (hit) return hit;
    throw unreachableError(conn, error, cachedRefs(opts.cacheDir));
  }
}

async function pullOnline(conn: HubConnection, repo: string, revision: string, opts: PullOptions): Promise<PullResult> {
  const commit = await resolveCommit(conn, repo, revision);
  const cached = cachedSnapshot(opts.cacheDir, repo, commit);
  if (cached) {
    commitSnapshot(opts.cacheDir, cached, revision);
    return { ...cached, revision, fromCache: true, downloadedBytes: 0, note: null };
  }
  const files = pickFiles(repo, commit, await listFiles(conn, repo, commit), opts.maxBytes ?? DEFAULT_MAX_IMPORT_BYTES);
  const dir = snapshotDir(opts.cacheDir, repo, commit);
  const totalBytes = files.reduce((n, f) => n + f.size, 0);
  const present = (f: RepoFile) => {
    const p = path.join(dir, f.path);
    return fs.existsSync(p) && fs.statSync(p).size === f.size;
  };
  await checkDisk(repo, dir, files.filter((f) => !present(f)).reduce((n, f) => n + f.size, 0));
  let doneBytes = 0;
  let downloadedBytes = 0;
  for (const file of files) {
    const dest = path.join(dir, file.path);
    if (present(file)) {
      // Verified and renamed by an earlier pull that stopped before the snapshot was complete.
      doneBytes += file.size;
      continue;
    }
    await downloadFile(conn, resolveUrl(conn, repo, commit, file.path), file, dest, (n) => {
      doneBytes += n;
      if (n > 0) downloadedBytes += n;
      opts.onProgress?.({ file: file.path, doneBytes, totalBytes });
    });
    if (file.path === 'config.json') checkConfig(repo, dest);
  }
  const snap: Snapshot = { repo, commit, dir, files };
  commitSnapshot(opts.cacheDir, snap, revision);
  return { ...snap, revision, fromCache: false, downloadedBytes, note: null };
}
