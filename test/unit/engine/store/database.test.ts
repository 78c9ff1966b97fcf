import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { migrate, openDatabase, schemaVersion, Store, StoreError } from '../../../../electron/engine/store';
import { migrations } from '../../../../electron/engine/store/migrations';
import { tempHome } from '../../../helpers/engine';

const homes: string[] = [];
const dbFile = () => {
  const home = tempHome('envace-store-');
  homes.push(home);
  return path.join(home, 'workbench.db');
};
afterEach(() => homes.splice(0).forEach((h) => fs.rmSync(h, { recursive: true, force: true })));

describe('migrations', () => {
  it('create every table from an empty file, with WAL and foreign keys on', () => {
    const db = openDatabase(dbFile());
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(['checkpoints', 'evaluations', 'exports', 'memories', 'metrics', 'rollouts', 'run_logs', 'runs', 'schema_migrations', 'turns']);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(schemaVersion(db)).toBe(Math.max(...migrations.map((m) => m.version)));
    db.close();
  });

  it('re-opening is idempotent and keeps the data', () => {
    const file = dbFile();
    const store = new Store(openDatabase(file));
    store.runs.insert({ id: 'r1', config: RunConfig.parse({ env: 'retail' }) });
    store.close();
    const again = openDatabase(file);
    expect(migrate(again, migrations)).toEqual([]);
    expect(again.prepare('SELECT COUNT(*) FROM schema_migrations').pluck().get()).toBe(migrations.length);
    expect(again.prepare('SELECT id FROM runs').pluck().all()).toEqual(['r1']);
    again.close();
  });

  it('upgrades a version-2 database: its test-time rollouts keep a null purpose, new ones state theirs', () => {
    const file = dbFile();
    const old = new Store(openDatabase(file, migrations.filter((m) => m.version <= 2)));
    const row = { runId: null, step: null, taskId: 't', env: 'mock', mode: 'test-time' as const, reward: 1, success: true, checklist: null, envCalls: 1, envWallMs: 1, tokens: 3, turns: [] };
    const before = old.db.prepare('INSERT INTO rollouts (task_id, env, mode, env_calls, env_wall_ms, tokens, created_at) VALUES (?, ?, ?, 0, 0, 0, 0)').run('t', 'mock', 'test-time').lastInsertRowid;
    old.close();
    const store = new Store(openDatabase(file));
    expect(schemaVersion(store.db)).toBe(Math.max(...migrations.map((m) => m.version)));
    expect(store.rollouts.get(Number(before))).toMatchObject({ mode: 'test-time', purpose: null });
    const after = store.rollouts.insert({ ...row, purpose: 'commit' });
    expect(store.rollouts.get(after)).toMatchObject({ mode: 'test-time', purpose: 'commit' });
    expect(() => store.db.prepare("UPDATE rollouts SET purpose = 'guess' WHERE id = ?").run(after)).toThrow(/CHECK constraint/);
    store.close();
  });

  it('applies only the migrations that are new, in order', () => {
    const file = dbFile();
    openDatabase(file).close();
    const extra = { version: 99, name: 'add-notes', up: 'ALTER TABLE runs ADD COLUMN notes TEXT' };
    const db = openDatabase(file, [...migrations, extra]);
    expect(db.prepare("SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name = 'notes'").pluck().get()).toBe(1);
    db.close();
  });

  it('refuses a database newer than this build, with a clear error', () => {
    const file = dbFile();
    openDatabase(file, [...migrations, { version: 50, name: 'future', up: 'SELECT 1' }]).close();
    expect(() => openDatabase(file)).toThrow(StoreError);
    expect(() => openDatabase(file)).toThrow(/schema version 50, newer than this build knows/);
  });

  it('rolls back a failing migration whole', () => {
    const file = dbFile();
    openDatabase(file).close();
    const latest = migrations[migrations.length - 1]!.version;
    const broken = { version: latest + 1, name: 'broken', up: 'CREATE TABLE half (x); INSERT INTO nowhere VALUES (1);' };
    expect(() => openDatabase(file, [...migrations, broken])).toThrow(/no such table: nowhere/);
    const db = openDatabase(file);
    expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'half'").pluck().get()).toBe(0);
    expect(schemaVersion(db)).toBe(latest);
    db.close();
  });
});

describe('a step write killed mid-transaction', () => {
  it('leaves the database consistent: the step is all there or not at all', async () => {
    const file = dbFile();
    const store = new Store(openDatabase(file));
    store.runs.insert({ id: 'r1', config: RunConfig.parse({ env: 'retail' }) });
    store.writeStep({ runId: 'r1', step: 1, metrics: { reward: 1 }, rollouts: [] });
    store.close();

    // The child opens the store, starts writing step 2 in one transaction, reports that it is
    // inside it, and then waits forever: we SIGKILL it with the transaction open.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '../../../fixtures/kill-mid-step.ts'), file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => String(d).includes('inside-transaction') && resolve());
      child.on('exit', (code) => reject(new Error(`child exited early with ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    const after = new Store(openDatabase(file));
    expect(after.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(after.metrics.query({ runId: 'r1', keys: ['reward'], maxPoints: 10 })[0].steps).toEqual([1]);
    expect(after.rollouts.list({ runId: 'r1', limit: 10, offset: 0 }).total).toBe(0);
    expect(after.runs.get('r1')?.currentStep).toBe(1);
    // And the next write of step 2 goes through as if nothing happened.
    after.writeStep({ runId: 'r1', step: 2, metrics: { reward: 0.5 }, rollouts: [] });
    expect(after.metrics.query({ runId: 'r1', keys: ['reward'], maxPoints: 10 })[0].values).toEqual([1, 0.5]);
    after.close();
  });
});
