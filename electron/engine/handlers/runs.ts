import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { ContractError } from '../../contract';
import { runDir } from '../home';
import type { HandlerGroup } from './types';

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `run-${stamp}-${randomBytes(3).toString('hex')}`;
}

export const runsHandlers: HandlerGroup<'runs.list' | 'runs.get' | 'runs.create' | 'runs.delete'> = (s) => ({
  'runs.list': (input) => s.store.runs.list(input),
  'runs.get': ({ id }) => {
    const run = s.store.runs.get(id);
    if (!run) throw new ContractError('not_found', `no run with id ${id}`);
    return run;
  },
  'runs.create': ({ config }) => {
    if (!s.envs.ids().includes(config.env)) {
      const known = s.envs.ids();
      throw new ContractError('invalid_input', `unknown environment "${config.env}"${known.length ? `; known: ${known.join(', ')}` : ''}`, [
        { path: 'config.env', message: 'not a registered environment' },
      ]);
    }
    const run = s.store.runs.insert({ id: newRunId(), config });
    s.events.emit('run.status', { runId: run.id, status: run.status, error: null });
    return run;
  },
  'runs.delete': ({ id }) => {
    const run = s.store.runs.get(id);
    if (!run) throw new ContractError('not_found', `no run with id ${id}`);
    if (run.status === 'running' || run.status === 'queued') {
      throw new ContractError('conflict', `run ${id} is ${run.status}; cancel it before deleting`);
    }
    s.store.runs.delete(id);
    fs.rmSync(runDir(s.paths, id), { recursive: true, force: true });
    return { ok: true as const };
  },
});
