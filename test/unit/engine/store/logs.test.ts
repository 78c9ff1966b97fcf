import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { openDatabase, Store } from '../../../../electron/engine/store';
import { LogsRepo } from '../../../../electron/engine/store/logs';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function fileStore(): { file: string; store: Store } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-logs-'));
  dirs.push(dir);
  const file = path.join(dir, 'workbench.db');
  return { file, store: Store.open(file) };
}

describe('run logs', () => {
  it('survive closing and reopening the store (a reload or an engine restart)', () => {
    const { file, store } = fileStore();
    store.runs.insert({ id: 'r1', config: RunConfig.parse({ env: 'retail' }) });
    store.logs.append('r1', { level: 'info', message: 'stage sft: 400 steps', time: 1 });
    store.logs.append('r1', { level: 'error', message: 'out of memory', time: 2 });
    store.close();
    const reopened = Store.open(file);
    expect(reopened.logs.list('r1')).toEqual([
      { runId: 'r1', level: 'info', message: 'stage sft: 400 steps', time: 1 },
      { runId: 'r1', level: 'error', message: 'out of memory', time: 2 },
    ]);
    expect(reopened.logs.list('r1', 1).map((l) => l.message)).toEqual(['out of memory']);
    reopened.close();
  });

  it('keep the newest lines per run up to the cap, counting each run on its own', () => {
    const db = openDatabase(':memory:');
    const store = new Store(db);
    for (const id of ['a', 'b']) store.runs.insert({ id, config: RunConfig.parse({ env: 'retail' }) });
    const logs = new LogsRepo(db, 3);
    // Interleaved writers: b's lines must not push a's out.
    for (let i = 1; i <= 5; i++) {
      logs.append('a', { level: 'info', message: `a${i}`, time: i });
      logs.append('b', { level: 'info', message: `b${i}`, time: i });
    }
    logs.append('b', { level: 'info', message: 'b6', time: 6 });
    expect(logs.list('a').map((l) => l.message)).toEqual(['a3', 'a4', 'a5']);
    expect(logs.list('b').map((l) => l.message)).toEqual(['b4', 'b5', 'b6']);
    store.runs.delete('a');
    expect(db.prepare("SELECT COUNT(*) FROM run_logs WHERE run_id = 'a'").pluck().get()).toBe(0);
    store.close();
  });
});
