import fs from 'node:fs';
import path from 'node:path';
import type { RepoFile } from './api';

/**
 * The Hub cache in the data home: `cache/hub/models--OWNER--NAME/` with `refs/<revision>` (the commit a
 * branch or tag pointed at when last pulled) and `snapshots/<commit>/` (the files, verified). Like
 * huggingface_hub's layout but without its blobs/ and symlinks: symlinks need extra rights on Windows,
 * and the import copies a snapshot into models/ anyway, so sharing blobs between revisions saves little.
 */
export const COMPLETE_FILE = '.envace-snapshot.json';

export interface Snapshot {
  repo: string;
  commit: string;
  dir: string;
  files: RepoFile[];
}

export const hubCacheDir = (home: string) => path.join(home, 'cache', 'hub');
const repoDir = (cacheDir: string, repo: string) => path.join(cacheDir, `models--${repo.replace('/', '--')}`);
/** Revisions may hold '/' (refs/pr/1): one file per revision, its name encoded. */
const refFile = (cacheDir: string, repo: string, revision: string) => path.join(repoDir(cacheDir, repo), 'refs', encodeURIComponent(revision));

export function snapshotDir(cacheDir: string, repo: string, commit: string): string {
  return path.join(repoDir(cacheDir, repo), 'snapshots', commit);
}

/** Mark a snapshot complete (every file verified) and point the revision at it. */
export function commitSnapshot(cacheDir: string, snap: Snapshot, revision: string): void {
  fs.writeFileSync(path.join(snap.dir, COMPLETE_FILE), JSON.stringify({ repo: snap.repo, commit: snap.commit, files: snap.files }, null, 2));
  const ref = refFile(cacheDir, snap.repo, revision);
  fs.mkdirSync(path.dirname(ref), { recursive: true });
  fs.writeFileSync(ref, snap.commit);
}

function readSnapshot(dir: string): Snapshot | null {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(dir, COMPLETE_FILE), 'utf8')) as Snapshot;
    if (!s.files.every((f) => fs.existsSync(path.join(dir, f.path)))) return null;
    return { ...s, dir };
  } catch {
    return null;
  }
}

/** The complete snapshot a revision (branch, tag or full commit) names in the cache, or null. */
export function cachedSnapshot(cacheDir: string, repo: string, revision: string): Snapshot | null {
  let commit = revision;
  if (!/^[0-9a-f]{40}$/.test(revision)) {
    try {
      commit = fs.readFileSync(refFile(cacheDir, repo, revision), 'utf8').trim();
    } catch {
      return null;
    }
  }
  return readSnapshot(snapshotDir(cacheDir, repo, commit));
}

/** Every cached OWNER/NAME@revision, for the message that says what can be used offline. */
export function cachedRefs(cacheDir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : []) {
    const m = /^models--(.+?)--(.+)$/.exec(entry);
    if (!m) continue;
    const repo = `${m[1]}/${m[2]}`;
    const refs = path.join(cacheDir, entry, 'refs');
    for (const ref of fs.existsSync(refs) ? fs.readdirSync(refs).sort() : []) {
      const revision = decodeURIComponent(ref);
      if (cachedSnapshot(cacheDir, repo, revision)) out.push(`${repo}@${revision}`);
    }
  }
  return out;
}
