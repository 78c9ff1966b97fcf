// Evaluate with the memories a person kept: a task with a stored memory of the run (its newest
// version, a hand edit included) is committed with it instead of rehearsing anew.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../electron/contract';
import { createEngine, type Engine } from '../../electron/engine/host';
import { inProcessClient } from '../../electron/engine/in-process';
import { seedCheckpointedRun } from '../helpers/checkpoint';
import { tempHome } from '../helpers/engine';
import { patience } from '../helpers/patience';

let home: string;
let engine: Engine;
let api: WorkbenchApi;
let runId: string;

beforeAll(async () => {
  home = tempHome('envace-evals-memories-');
  engine = createEngine({ home });
  api = inProcessClient(engine);
  const rollout = { maxTurns: 2, maxTokensPerTurn: 12, maxObservationTokens: 24, k: 2, toolSchemas: 'none' as const };
  ({ runId } = await seedCheckpointedRun(engine, { env: 'mock', model: { preset: 'nano' }, rollout }, ['create a task for the user', 'get_users']));
}, patience(120_000));

afterAll(async () => {
  await engine?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

describe('evals.run with stored memories', () => {
  it('commits each task that has one with its newest version (the edit), and the others without rehearsal', async () => {
    const tasks = (await api.call('envs.tasks', { id: 'mock', split: 'heldout', limit: 2 })).items.map((t) => t.id);
    expect(tasks).toHaveLength(2);
    const { memory } = await api.call('memories.rehearse', { runId, taskId: tasks[0]!, rehearsals: 1 });
    const edited = await api.call('memories.update', { id: memory.id, text: 'Plan: call get_users first.' });

    // The whole held-out split: `limit` draws a seeded sample across families, which need not hold these two.
    const result = await api.call('evals.run', { runId, split: 'heldout', memories: 'stored', commit: 'prompt' });
    expect(result).toMatchObject({ memories: 'stored', rehearsals: 0 });
    const withMemory = result.perTask.find((t) => t.taskId === tasks[0]);
    const without = result.perTask.find((t) => t.taskId === tasks[1]);
    expect(withMemory).toMatchObject({ memoryId: edited.id });
    expect(without!.memoryId).toBeUndefined();
    expect(result.perTask.filter((t) => t.memoryId !== undefined)).toHaveLength(1);
    // The committed rollout carries the edited text in its memory turn; the other has no memory turn.
    const committed = await api.call('trajectories.get', { id: withMemory!.rolloutId! });
    expect(committed).toMatchObject({ purpose: 'commit', memoryId: edited.id });
    expect(committed.turns.find((t) => t.role === 'memory')?.text).toContain('Plan: call get_users first.');
    const plain = await api.call('trajectories.get', { id: without!.rolloutId! });
    expect(plain.turns.some((t) => t.role === 'memory')).toBe(false);
    // Stored with the result: its setting says where the memories came from.
    expect((await api.call('evals.list', { runId })).items.at(-1)).toMatchObject({ memories: 'stored' });
  }, patience(120_000));
});
