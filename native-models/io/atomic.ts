// Folders (checkpoints, exports) that appear complete or not at all.
//
// A folder is filled under `<dir>.tmp-<id>`, flushed to disk, renamed to `<dir>.ready-<id>` (now known
// complete), and swapped in: the old `<dir>` moves to `<dir>.old-<id>`, the ready folder to `<dir>`, the old
// one is deleted. POSIX rename cannot replace a non-empty folder, hence the two-step swap; a crash between
// its steps leaves a `.ready-` folder that `recoverAtomicDir` (called by readers) moves into place.

import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { pausePoint } from './pause-point';

export class AtomicWriteError extends Error {
  override name = 'AtomicWriteError';
  constructor(
    readonly dir: string,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(`${dir}: ${message}`);
  }
}

type Stage = 'tmp' | 'ready' | 'old';

function siblings(dir: string, stage: Stage): string[] {
  const parent = dirname(dir);
  const prefix = `${basename(dir)}.${stage}-`;
  if (!existsSync(parent)) return [];
  return readdirSync(parent)
    .filter((name) => name.startsWith(prefix) && /^[0-9a-f]+$/.test(name.slice(prefix.length)))
    .map((name) => join(parent, name));
}

function newestFirst(paths: string[]): string[] {
  return paths.map((p) => ({ p, t: statSync(p).mtimeMs })).sort((a, b) => b.t - a.t).map((x) => x.p);
}

/** Flush every file and folder under `root` so a rename cannot expose unwritten data after a power loss. */
function fsyncTree(root: string): void {
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) fsyncTree(path);
    else if (entry.isFile()) fsyncPath(path);
  }
  fsyncPath(root);
}

function fsyncPath(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch {
    // Folders cannot be opened for fsync on Windows; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Finish or undo a replace that a crash interrupted, and clear leftovers. Returns true when `dir` exists after.
 * A `.ready-` folder is complete by construction, so it wins over a surviving `.old-` one.
 */
export function recoverAtomicDir(dir: string): boolean {
  if (!existsSync(dir)) {
    const ready = newestFirst(siblings(dir, 'ready'));
    const old = newestFirst(siblings(dir, 'old'));
    const candidate = ready[0] ?? old[0];
    if (candidate) renameSync(candidate, dir);
  }
  for (const stage of ['tmp', 'ready', 'old'] as const) {
    for (const leftover of siblings(dir, stage)) rmSync(leftover, { recursive: true, force: true });
  }
  return existsSync(dir);
}

/** Folders this thread is writing now (real parent path + name): a sweep must leave their temp siblings alone. */
const writing = new Set<string>();
const key = (dir: string) => join(realpathSync(dirname(dir)), basename(dir));

/**
 * `recoverAtomicDir` for every folder in `parent` that a crashed write left a `.tmp-`, `.ready-` or
 * `.old-` sibling of, except those this thread is writing now. For folders whose names are never
 * written again (timestamped exports), where no later write to the same name would clear them.
 */
export function recoverAtomicLeftovers(parent: string): void {
  if (!existsSync(parent)) return;
  const dirs = new Set<string>();
  for (const name of readdirSync(parent)) {
    const match = /^(.+)\.(?:tmp|ready|old)-[0-9a-f]+$/.exec(name);
    if (match) dirs.add(join(parent, match[1]));
  }
  for (const dir of dirs) if (!writing.has(key(dir))) recoverAtomicDir(dir);
}

function swapIn(dir: string, tmp: string, id: string): void {
  pausePoint(`atomic-filled:${basename(dir)}`);
  fsyncTree(tmp);
  const ready = `${dir}.ready-${id}`;
  renameSync(tmp, ready);
  const old = `${dir}.old-${id}`;
  const hadOld = existsSync(dir);
  if (hadOld) renameSync(dir, old);
  pausePoint(`atomic-swapping:${basename(dir)}`);
  renameSync(ready, dir);
  fsyncPath(dirname(dir));
  if (hadOld) rmSync(old, { recursive: true, force: true });
}

function prepare(dir: string): { tmp: string; id: string; writingKey: string } {
  mkdirSync(dirname(dir), { recursive: true });
  recoverAtomicDir(dir);
  const id = randomBytes(6).toString('hex');
  const tmp = `${dir}.tmp-${id}`;
  mkdirSync(tmp);
  const writingKey = key(dir);
  writing.add(writingKey);
  return { tmp, id, writingKey };
}

function abandon(dir: string, tmp: string, e: unknown): never {
  rmSync(tmp, { recursive: true, force: true });
  if (e instanceof AtomicWriteError) throw e;
  throw new AtomicWriteError(dir, `write failed, previous contents kept (${(e as Error)?.message ?? String(e)})`, e);
}

/** Create or replace folder `dir` with what `fill` writes into the (empty) temp folder it is given. */
export function writeDirAtomicSync(dir: string, fill: (tmpDir: string) => void): void {
  const { tmp, id, writingKey } = prepare(dir);
  try {
    fill(tmp);
    swapIn(dir, tmp, id);
  } catch (e) {
    abandon(dir, tmp, e);
  } finally {
    writing.delete(writingKey);
  }
}

/** Async form of `writeDirAtomicSync`, for fills that await (exports that stream files). */
export async function writeDirAtomic(dir: string, fill: (tmpDir: string) => Promise<void> | void): Promise<void> {
  const { tmp, id, writingKey } = prepare(dir);
  try {
    await fill(tmp);
    swapIn(dir, tmp, id);
  } catch (e) {
    abandon(dir, tmp, e);
  } finally {
    writing.delete(writingKey);
  }
}

/**
 * Write one file whole or not at all: `<file>.tmp-<hex>` written and flushed, then renamed over `file`
 * (a reader sees the old content or the new, never half). A crash leaves at most the temp sibling,
 * which `recoverAtomicLeftovers` of the folder clears.
 */
export function writeFileAtomicSync(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp-${randomBytes(4).toString('hex')}`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      writeFileSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    fsyncPath(dirname(file));
  } finally {
    rmSync(tmp, { force: true });
  }
}
