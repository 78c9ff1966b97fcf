// evals.run with `robustness`: the table comes back with the result and is stored with it; its
// unperturbed cell is the evaluation's own figure (the same run, paired seeds).
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
  home = tempHome('envace-evals-robustness-');
  engine = createEngine({ home });
  api = inProcessClient(engine);
  const rollout = { maxTurns: 2, maxTokensPerTurn: 12, maxObservationTokens: 24, k: 2, toolSchemas: 'none' as const };
  // No context reserved for a memory: the nano model's 256 tokens hold the mock prompt with little to spare.
  ({ runId } = await seedCheckpointedRun(engine, { env: 'mock', model: { preset: 'nano' }, rollout, testTime: { memoryTokens: 0 } }, [
    'create a task for the user',
    'get_users',
  ]));
}, patience(120_000));

afterAll(async () => {
  await engine?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

describe('evals.run with robustness', () => {
  it(
    'returns and stores a paired table: the unperturbed cell is the evaluation, one cell per site and size, and the memory cell',
    async () => {
      const result = await api.call('evals.run', { runId, split: 'heldout', limit: 2, robustness: [1, 4] });
      const table = result.robustness!;
      expect(table.cells.map((c) => `${c.perturbation}:${c.where}:${c.perturbation === 'memory' ? '' : c.tokens}`)).toEqual([
        'none:null:0',
        'filler:system:1',
        'filler:system:4',
        'filler:instruction:1',
        'filler:instruction:4',
        'filler:memory:1',
        'filler:memory:4',
        'memory:memory:',
      ]);
      expect(table.cells[0]).toMatchObject({ success: result.success, delta: 0, envCallsPerTask: result.envCallsPerTask });
      for (const c of table.cells) expect(c.delta).toBeCloseTo(c.success - result.success, 12);
      expect(table.worstDrop).toBeCloseTo(Math.max(0, ...table.cells.map((c) => -c.delta)), 12);
      expect(table.passed).toBe(table.worstDrop <= table.tolerance + 1e-9);
      expect((await api.call('evals.list', { runId })).items[0]!.robustness).toEqual(table);
      // A plain evaluation carries none.
      expect((await api.call('evals.run', { runId, split: 'heldout', limit: 1 })).robustness).toBeUndefined();
    },
    patience(240_000),
  );

  it('refuses robustness with test-time rehearsals (each cell must be a plain, paired evaluation)', async () => {
    await expect(api.call('evals.run', { runId, split: 'heldout', limit: 1, rehearsals: 1, robustness: true })).rejects.toThrow(/robustness/);
  });
});
