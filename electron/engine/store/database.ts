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
export function openDatabase(file: string, list: Migration[] = migrations, options: { migrate?: boolean } = {}): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // A read-only attach (another engine owns the home) leaves the schema to the owner.
  if (options.migrate ?? true) migrate(db, list);
  return db;
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
