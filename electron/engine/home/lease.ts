// One writer per data home. The first engine to open a home holds its lease; any other engine on the
// same home, in this process or another, attaches read-only until the owner is provably gone.
// "Provably" is what lets a new owner mark the old owner's live runs interrupted without ever doing
// that to a run that is still training.
//
// The exclusion is a kernel lock: the owner keeps an exclusive SQLite transaction open on
// `engine.lock.db` (SQLite's POSIX byte-range lock, which also excludes a second connection in the
// same process). The kernel drops it when the owner dies, kill -9 included, so there is nothing stale
// to judge on this machine, and no file content a third party writes can hand the home to a second
// writer: an earlier link(2) lock, judged by the pid it named, let two racers win a stale lock and
// let garbage written over a live owner's lock count as "gone".
//
// `engine.lock` (JSON) names the owner for messages ("in use by envace train, pid …") and carries a
// heartbeat for engines on other hosts sharing the folder, whose kernel locks this one may not see.
// The owner verifies both before every write to the store (`assertOwner`): a lock file replaced
// under it (a new inode, so another engine may hold a lock of its own) or an owner named from another
// host stops its writes with a typed error instead of two writers working at once.

import { ContractError } from '../../contract';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KernelLock } from './kernel-lock';
import { processStartTime } from './process-identity';

export { processStartTime };

export const LEASE_FILE = 'engine.lock';
export const LOCK_DB_FILE = 'engine.lock.db';
/** How often the owner touches `engine.lock`; only owners on another host are judged by it. */
const HEARTBEAT_MS = 10_000;
/** An owner on another host (a shared folder) counts as gone after this long without a heartbeat. */
export const REMOTE_STALE_MS = 120_000;

export interface LeaseOwner {
  pid: number;
  host: string;
  /** The process's start time as the kernel reports it (Linux); shown, and used by `home unlock`. */
  processStart: string | null;
  startedAt: number;
  /** What holds the home, in words: "envace serve", "envace train", "the desktop app". */
  label: string;
  /** Distinguishes two engines in one process. */
  token: string;
}

/** The lease was lost under a running owner, or was never held: writes stop with this typed conflict. */
export class LeaseError extends ContractError {
  constructor(message: string) {
    super('conflict', message);
    this.name = 'LeaseError';
  }
}

export function describeOwner(owner: LeaseOwner): string {
  const where = owner.host === os.hostname() ? '' : ` on ${owner.host}`;
  const since = owner.startedAt > 0 ? `, since ${new Date(owner.startedAt).toISOString().slice(0, 19).replace('T', ' ')} UTC` : '';
  return `${owner.label} (pid ${owner.pid}${where}${since})`;
}

/** What `engine.lock` says, read without trusting it: null when there is none. */
export interface LockFile {
  /** null when the file is there but does not parse as an owner (garbage, truncated, a folder). */
  owner: LeaseOwner | null;
  mtimeMs: number;
}

export function readLockFile(file: string): LockFile | null {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { owner: null, mtimeMs: 0 };
  }
  try {
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as LeaseOwner;
    const ok = typeof owner?.pid === 'number' && typeof owner.host === 'string' && typeof owner.token === 'string' && typeof owner.label === 'string';
    return { owner: ok ? owner : null, mtimeMs: stat.mtimeMs };
  } catch {
    return { owner: null, mtimeMs: stat.mtimeMs };
  }
}

/** An owner on another host whose heartbeat is recent enough that it may still be writing (clock skew counts as recent). */
export function remoteOwnerLive(lock: LockFile | null, now = Date.now()): boolean {
  if (!lock?.owner || lock.owner.host === os.hostname()) return false;
  return now - lock.mtimeMs < REMOTE_STALE_MS;
}

/** Write a file whole under its final name (temp + rename): a reader never sees half a lock. */
function writeWhole(file: string, text: string): void {
  const temp = `${file}.new-${randomBytes(4).toString('hex')}`;
  try {
    fs.writeFileSync(temp, text);
    try {
      fs.renameSync(temp, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EISDIR' && code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'EPERM') throw error;
      // A folder under the lock's name: removed when empty, else set aside and kept; then the lock is written.
      try {
        fs.rmdirSync(file);
      } catch {
        fs.renameSync(file, `${file}.aside-${Date.now()}`);
      }
      fs.renameSync(temp, file);
    }
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/** Leftovers of earlier lock schemes and interrupted writes beside the lock: only the owner tidies them. */
function tidyLockLeftovers(home: string): void {
  let names: string[] = [];
  try {
    names = fs.readdirSync(home);
  } catch {
    return;
  }
  for (const name of names) {
    if (!/^engine\.lock\.(stale|new)-[0-9a-f]+$/.test(name)) continue;
    try {
      fs.rmSync(path.join(home, name), { recursive: true, force: true });
    } catch (error) {
      console.error(`[engine] could not tidy ${name}:`, (error as Error).message);
    }
  }
}

export class HomeLease {
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly me: LeaseOwner;
  private readonly file: string;
  private readonly kernel: KernelLock;
  /** Why this engine cannot hold the home at all (a read-only filesystem), once known. */
  private unusable: string | null = null;

  constructor(
    readonly home: string,
    label: string,
  ) {
    this.file = path.join(home, LEASE_FILE);
    this.kernel = new KernelLock(path.join(home, LOCK_DB_FILE));
    this.me = { pid: process.pid, host: os.hostname(), processStart: processStartTime(process.pid), startedAt: Date.now(), label, token: randomBytes(8).toString('hex') };
  }

  get isOwner(): boolean {
    return this.kernel.held;
  }

  /** Why no engine can own this home from here (e.g. a read-only filesystem); null when one can. */
  get unusableReason(): string | null {
    return this.unusable;
  }

  /** Who holds the home now, when it is not this engine (null when this engine does, or nobody does). */
  currentOwner(): LeaseOwner | null {
    if (this.isOwner) return null;
    const lock = readLockFile(this.file);
    if (remoteOwnerLive(lock)) return lock!.owner;
    const probe = this.kernel.probe();
    if (probe.state !== 'held') return null;
    // Held: the file names it, unless it was overwritten (then the holder is known only as "another engine").
    return lock?.owner ?? { pid: -1, host: os.hostname(), processStart: null, startedAt: 0, label: 'another engine (its engine.lock is unreadable)', token: '' };
  }

  /** Try to become the owner; true when this engine holds the lease afterwards. */
  tryAcquire(): boolean {
    if (this.isOwner) return true;
    // A live owner elsewhere on a shared folder: its kernel lock may be invisible from here.
    if (remoteOwnerLive(readLockFile(this.file))) return false;
    // The cheap shared probe first, so that an engine asking on every request while another owns
    // the home never waits; only a free lock is taken (waiting out other probes).
    const probe = this.kernel.probe();
    if (probe.state === 'held') return false;
    if (probe.state === 'unusable') return this.cannotUse(probe.reason);
    const taken = this.kernel.take();
    if (taken.state === 'held') return false;
    if (taken.state === 'unusable') return this.cannotUse(taken.reason);
    // Checked again under the lock: a remote owner may have written its lock in between.
    if (remoteOwnerLive(readLockFile(this.file))) {
      this.kernel.drop();
      return false;
    }
    try {
      writeWhole(this.file, JSON.stringify(this.me));
    } catch (error) {
      this.kernel.drop();
      return this.cannotUse(`${this.file} cannot be written (${(error as Error).message})`);
    }
    tidyLockLeftovers(this.home);
    this.startHeartbeat();
    return true;
  }

  /**
   * Called before every write to the store: throws LeaseError, and gives the lease up, when this
   * engine no longer provably holds the home. Garbage or another local name written over
   * `engine.lock` does not cost the lease (the kernel lock is still ours, so no local engine can
   * hold it): the file is written again.
   */
  assertOwner(): void {
    if (!this.kernel.held) throw new LeaseError(`this engine does not hold the data home ${this.home}${this.unusable ? `: ${this.unusable}` : ''}`);
    if (!this.kernel.stillOurs()) this.lose(`${path.join(this.home, LOCK_DB_FILE)} was removed or replaced while this engine held it, so another engine may hold a lock of its own`);
    const lock = readLockFile(this.file);
    if (lock?.owner?.token === this.me.token) return;
    if (lock?.owner && lock.owner.host !== this.me.host) this.lose(`${this.file} now names ${describeOwner(lock.owner)} on another host`);
    try {
      writeWhole(this.file, JSON.stringify(this.me));
      console.error(`[engine] ${this.file} had been ${lock === null ? 'removed' : 'overwritten'} under this engine, which still holds the home; written again`);
    } catch (error) {
      this.lose(`${this.file} cannot be written (${(error as Error).message})`);
    }
  }

  /** Give the home up (engine close). Only removes the lock file if it still names this engine. */
  release(): void {
    this.stopHeartbeat();
    if (!this.kernel.held) return;
    if (readLockFile(this.file)?.owner?.token === this.me.token) fs.rmSync(this.file, { force: true });
    this.kernel.drop();
  }

  private lose(why: string): never {
    this.stopHeartbeat();
    this.kernel.drop();
    throw new LeaseError(`this engine lost the data home ${this.home}: ${why}; it writes nothing more (restart it to reopen the home)`);
  }

  private cannotUse(reason: string): false {
    this.unusable = reason;
    return false;
  }

  private startHeartbeat(): void {
    this.heartbeat = setInterval(() => {
      const now = new Date();
      try {
        fs.utimesSync(this.file, now, now);
      } catch {
        // gone or replaced: the next write's assertOwner decides what that means
      }
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }
}

export interface UnlockCheck {
  check: string;
  passed: boolean;
  detail: string;
}

export interface UnlockReport {
  checks: UnlockCheck[];
  /** Whether a lock file was removed (false when there was none, or a check refused). */
  removed: boolean;
  /** Whether the home is free for the next engine afterwards. */
  free: boolean;
}

/**
 * `envace home unlock`: free a home whose lock names an engine that is gone. A local engine can never
 * be unlocked (its kernel lock is the proof it runs); an owner named from another host only with
 * `force` while its heartbeat is recent, since from here it cannot be told from a live one.
 */
export function unlockHome(home: string, options: { force?: boolean; now?: number } = {}): UnlockReport {
  const now = options.now ?? Date.now();
  const file = path.join(home, LEASE_FILE);
  const checks: UnlockCheck[] = [];
  const lock = readLockFile(file);
  const named = lock?.owner ? describeOwner(lock.owner) : lock ? 'nobody readable (the file is not a lock an engine wrote)' : null;
  const probe = new KernelLock(path.join(home, LOCK_DB_FILE)).probe();
  if (probe.state === 'held') {
    checks.push({ check: 'no engine on this machine holds the home', passed: false, detail: `an engine holds ${LOCK_DB_FILE}${lock?.owner ? `: ${named}` : ''}; stop that process instead (it is running, so its lock is not stale)` });
    return { checks, removed: false, free: false };
  }
  if (probe.state === 'unusable') {
    checks.push({ check: 'the home can be locked', passed: false, detail: probe.reason });
    return { checks, removed: false, free: false };
  }
  checks.push({ check: 'no engine on this machine holds the home', passed: true, detail: `nobody holds the kernel lock on ${LOCK_DB_FILE} (an engine that runs always does; the kernel drops it when the engine exits or is killed)` });
  if (lock === null) {
    checks.push({ check: `${LEASE_FILE} names an owner`, passed: true, detail: 'there is no lock file: the home is free' });
    return { checks, removed: false, free: true };
  }
  if (lock.owner && lock.owner.host !== os.hostname()) {
    const age = Math.round((now - lock.mtimeMs) / 1000);
    const recent = remoteOwnerLive(lock, now);
    checks.push({
      check: 'an owner on another host has stopped its heartbeat',
      passed: !recent || Boolean(options.force),
      detail: recent
        ? `${named} touched the lock ${age < 0 ? `${-age} s in the future (clocks disagree)` : `${age} s ago`}; an engine there may still be writing over a shared folder.${options.force ? ' Removed anyway (--force).' : ` Check that machine; if it no longer runs an engine here, run again with --force (it counts as gone by itself ${REMOTE_STALE_MS / 1000} s after its last heartbeat).`}`
        : `${named} last touched the lock ${age} s ago (over ${REMOTE_STALE_MS / 1000} s): gone`,
    });
    if (recent && !options.force) return { checks, removed: false, free: false };
  } else {
    checks.push({ check: `${LEASE_FILE} names a live engine`, passed: true, detail: lock.owner ? `it names ${named} on this host, which holds no lock: stale` : `it is unreadable: no engine wrote it` });
  }
  const aside = `${file}.aside-${now}`;
  if (!fs.statSync(file).isDirectory()) fs.rmSync(file, { force: true });
  else if (fs.readdirSync(file).length === 0) fs.rmdirSync(file);
  else fs.renameSync(file, aside);
  tidyLockLeftovers(home);
  checks.push({ check: 'lock removed', passed: true, detail: fs.existsSync(aside) ? `${LEASE_FILE} was a folder: moved aside to ${path.basename(aside)}, kept` : `${file} removed; the next engine takes the home` });
  return { checks, removed: true, free: true };
}
