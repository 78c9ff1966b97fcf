// One writer per data home. The first engine to open a home holds its lease, a small JSON file
// (`engine.lock`) naming the owner; any other engine on the same home, in this process or another,
// attaches read-only until the owner is provably gone. "Provably" is what lets a new owner mark
// the old owner's live runs interrupted without ever doing that to a run that is still training.
//
// Creation is `link(2)` of a fully written temp file onto the lock name: it fails when the name
// exists, so two engines racing for a free home cannot both win, and a reader never sees a
// half-written lock. A stale lock is first renamed aside (only one racer's rename succeeds).

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const LEASE_FILE = 'engine.lock';
/** How often the owner touches the lock; only owners on another host are judged by it. */
const HEARTBEAT_MS = 10_000;
/** An owner on another host (a shared folder) counts as gone after this long without a heartbeat. */
const REMOTE_STALE_MS = 120_000;

export interface LeaseOwner {
  pid: number;
  host: string;
  /** The process's start time as the kernel reports it (Linux), so a reused pid is not mistaken for the owner. */
  processStart: string | null;
  startedAt: number;
  /** What holds the home, in words: "envace serve", "envace train", "the desktop app". */
  label: string;
  /** Distinguishes two engines in one process. */
  token: string;
}

export function describeOwner(owner: LeaseOwner): string {
  const where = owner.host === os.hostname() ? '' : ` on ${owner.host}`;
  return `${owner.label} (pid ${owner.pid}${where}, since ${new Date(owner.startedAt).toISOString().slice(0, 19).replace('T', ' ')} UTC)`;
}

/** Field 22 of /proc/<pid>/stat: start time in clock ticks since boot; null where there is no procfs. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses; fields after it are plain.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the owner named in a lock can still be writing. Errs towards "alive" when it cannot tell. */
export function ownerAlive(owner: LeaseOwner, lockMtimeMs: number, now = Date.now()): boolean {
  if (owner.host !== os.hostname()) return now - lockMtimeMs < REMOTE_STALE_MS;
  if (!pidExists(owner.pid)) return false;
  const start = processStartTime(owner.pid);
  if (start !== null && owner.processStart !== null) return start === owner.processStart;
  // No procfs: a live pid with a recent heartbeat is the owner; a pid reused long after is not.
  return now - lockMtimeMs < REMOTE_STALE_MS;
}

function readLock(file: string): { owner: LeaseOwner; mtimeMs: number } | null {
  try {
    const text = fs.readFileSync(file, 'utf8');
    const mtimeMs = fs.statSync(file).mtimeMs;
    const owner = JSON.parse(text) as LeaseOwner;
    if (typeof owner?.pid !== 'number' || typeof owner.host !== 'string' || typeof owner.token !== 'string') return { owner: { ...unreadableOwner(), token: '' }, mtimeMs };
    return { owner, mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    // A lock that cannot be parsed was not written by a live engine (they write it whole): stale.
    return { owner: { ...unreadableOwner(), token: '' }, mtimeMs: 0 };
  }
}

function unreadableOwner(): Omit<LeaseOwner, 'token'> {
  return { pid: -1, host: os.hostname(), processStart: null, startedAt: 0, label: 'an unreadable lock' };
}

export class HomeLease {
  private heartbeat: NodeJS.Timeout | null = null;
  private held = false;
  private readonly me: LeaseOwner;
  private readonly file: string;

  constructor(
    readonly home: string,
    label: string,
  ) {
    this.file = path.join(home, LEASE_FILE);
    this.me = { pid: process.pid, host: os.hostname(), processStart: processStartTime(process.pid), startedAt: Date.now(), label, token: randomBytes(8).toString('hex') };
  }

  get isOwner(): boolean {
    return this.held;
  }

  /** Who holds the home now, when it is not this engine (null when this engine does, or nobody does). */
  currentOwner(): LeaseOwner | null {
    if (this.held) return null;
    const found = readLock(this.file);
    return found && ownerAlive(found.owner, found.mtimeMs) ? found.owner : null;
  }

  /** Try to become the owner; true when this engine holds the lease afterwards. */
  tryAcquire(): boolean {
    if (this.held) return true;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.link()) return this.start();
      const found = readLock(this.file);
      if (found === null) continue; // released between our link and our read: try again
      if (ownerAlive(found.owner, found.mtimeMs)) return false;
      // Stale: move it aside; if another engine already did, its link races ours on the next attempt.
      const aside = `${this.file}.stale-${randomBytes(4).toString('hex')}`;
      try {
        fs.renameSync(this.file, aside);
        fs.rmSync(aside, { force: true });
      } catch {
        // someone else took it aside first
      }
    }
    return false;
  }

  /** Give the home up (engine close). Only removes the lock if it is still ours. */
  release(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (!this.held) return;
    this.held = false;
    const found = readLock(this.file);
    if (found?.owner.token === this.me.token) fs.rmSync(this.file, { force: true });
  }

  private link(): boolean {
    const temp = `${this.file}.new-${this.me.token}`;
    fs.writeFileSync(temp, JSON.stringify(this.me));
    try {
      fs.linkSync(temp, this.file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }

  private start(): boolean {
    this.held = true;
    this.heartbeat = setInterval(() => {
      const now = new Date();
      try {
        fs.utimesSync(this.file, now, now);
      } catch {
        // the home went away under us; nothing to keep alive
      }
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
    return true;
  }
}
