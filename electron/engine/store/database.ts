import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { migrations, type Migration } from './migrations';

export type Db = Database.Database;

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

/**
 * Open (or create) the workbench database: WAL for concurrent readers while a run writes,
 * foreign keys on, and every pending migration applied, each in its own transaction.
 */
export interface OpenOptions {
  /** Apply pending migrations (default true); a read-only attach leaves the schema to the owner. */
  migrate?: boolean;
  /**
   * Called before every statement that writes (and every `exec`); throwing stops the write. The
   * engine checks here that it still holds the data home's lease (home/lease.ts).
   */
  beforeWrite?: () => void;
  /** The file lies on a read-only mount: opened for reading only (see openReadOnly). */
  readOnly?: boolean;
}

export function openDatabase(file: string, list: Migration[] = migrations, options: OpenOptions = {}): Db {
  if (options.readOnly) return openReadOnly(file, list);
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  if (options.beforeWrite) guardWrites(db, options.beforeWrite);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // A read-only attach (another engine owns the home) leaves the schema to the owner.
  if (options.migrate ?? true) migrate(db, list);
  return db;
}

/**
 * A database on a read-only mount. SQLite opens a WAL database read-only only while its -wal and -shm
 * files exist, and a clean close removes them; then the file is read into memory with its header marked
 * as a rollback-journal database (the WAL is empty, so that is all of it). Writes answer SQLITE_READONLY.
 * A home without a database yet reads as an empty one.
 */
function openReadOnly(file: string, list: Migration[]): Db {
  if (!fs.existsSync(file)) {
    const empty = new Database(':memory:');
    migrate(empty, list);
    return empty;
  }
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return db;
  } catch {
    const image = fs.readFileSync(file);
    // Bytes 18 and 19 of the header: file format write/read versions, 2 = WAL, 1 = legacy journal.
    if (image.length >= 100 && image[18] === 2 && image[19] === 2) image[18] = image[19] = 1;
    const db = new Database(image, { readonly: true });
    db.pragma('foreign_keys = ON');
    return db;
  }
}

/**
 * Route every writing statement through `check` first. Statements are wrapped where they are prepared
 * (the repositories prepare theirs once), so a write cannot go around the check; reads are untouched.
 */
function guardWrites(db: Db, check: () => void): void {
  const prepare = db.prepare.bind(db);
  const exec = db.exec.bind(db);
  db.prepare = ((sql: string) => {
    const statement = prepare(sql);
    if (statement.readonly) return statement;
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      Object.defineProperty(statement, method, { value: (...args: unknown[]) => (check(), original(...args)) });
    }
    return statement;
  }) as Db['prepare'];
  db.exec = ((sql: string) => (check(), exec(sql))) as Db['exec'];
}

export function migrate(db: Db, list: Migration[]): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const newest = Math.max(0, ...applied);
  const known = Math.max(0, ...list.map((m) => m.version));
  if (newest > known) {
    throw new StoreError(`the database is at schema version ${newest}, newer than this build knows (${known}); update the workbench`);
  }
  const ran: number[] = [];
  for (const migration of [...list].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.up);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, Date.now());
    })();
    ran.push(migration.version);
  }
  return ran;
}

export function schemaVersion(db: Db): number {
  return (db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get() as number | null) ?? 0;
}
