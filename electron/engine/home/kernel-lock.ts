// A lock the kernel keeps: an exclusive SQLite transaction held open on a file (SQLite's POSIX
// byte-range lock, which also excludes a second connection in the same process). It goes when the
// holder closes it or dies, kill -9 included, so nothing is ever stale; what a third party writes
// into the file cannot hand it to anyone. Used for the data home's lease and an experiment's folder.

import Database from 'better-sqlite3';
import fs from 'node:fs';

/** How long taking a free lock waits out another process's momentary probe of it. */
const ACQUIRE_WAIT_MS = 250;

export type Probe = { state: 'free' } | { state: 'held' } | { state: 'unusable'; reason: string };

/**
 * The kernel lock on `engine.lock.db`. `probe` takes a shared lock for an instant (held: an owner's
 * exclusive lock is in the way); `take` takes the exclusive lock and keeps it until `drop`.
 */
export class KernelLock {
  private db: Database.Database | null = null;
  /** dev:ino of the file whose lock this holds: a lock file replaced under the owner is another lock. */
  private identity: string | null = null;

  constructor(readonly file: string) {}

  get held(): boolean {
    return this.db !== null;
  }

  probe(): Probe {
    return this.attempt((db) => {
      db.prepare('SELECT count(*) FROM sqlite_master').pluck().get();
      db.close();
      return { state: 'free' };
    }, 0);
  }

  take(): Probe {
    return this.attempt((db) => {
      db.exec('BEGIN EXCLUSIVE');
      this.db = db;
      this.identity = identityOf(this.file);
      return { state: 'free' };
    }, ACQUIRE_WAIT_MS);
  }

  /** Whether the file at the lock's path is still the one this lock holds. */
  stillOurs(): boolean {
    return this.held && identityOf(this.file) === this.identity;
  }

  drop(): void {
    try {
      this.db?.close();
    } catch {
      // closing ends the transaction and drops the lock either way
    }
    this.db = null;
    this.identity = null;
  }

  private attempt(use: (db: Database.Database) => Probe, waitMs: number): Probe {
    for (let round = 0; round < 2; round++) {
      let db: Database.Database | null = null;
      try {
        db = new Database(this.file, { timeout: waitMs });
        return use(db);
      } catch (error) {
        db?.close();
        const code = (error as { code?: string }).code;
        if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return { state: 'held' };
        // Not a database (garbage written over it) and nobody holds it: its content never matters
        // (the lock file is always empty), so empty it and try again.
        if ((code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') && round === 0 && emptyFile(this.file)) continue;
        return { state: 'unusable', reason: `${this.file} cannot be locked (${(error as Error).message})` };
      }
    }
    return { state: 'unusable', reason: `${this.file} cannot be locked` };
  }
}

function identityOf(file: string): string | null {
  try {
    const s = fs.statSync(file);
    return `${s.dev}:${s.ino}`;
  } catch {
    return null;
  }
}

function emptyFile(file: string): boolean {
  try {
    fs.truncateSync(file, 0);
    return true;
  } catch {
    return false;
  }
}
