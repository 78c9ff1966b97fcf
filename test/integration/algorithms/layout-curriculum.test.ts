// The layout curriculum inside one run: SFT's first steps show the tasks in the fixed template, then
// in their varied layouts; both renderings are the same tasks (entities, calls, answers).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunConfig, type RunConfigInput } from '../../../electron/contract';
import { fixedLayoutTranscripts } from '../../../electron/engine/algorithms/layout-curriculum';
import { runTraining, type StepResult } from '../../../electron/engine/algorithms/train';
import { RetailEnv } from '../../../electron/engine/envs/retail/env';
import { patience } from '../../helpers/patience';

const root = mkdtempSync(join(tmpdir(), 'envace-layout-curriculum-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const shape: RunConfigInput = {
  env: 'retail',
  worldMode: 'procedural',
  taskMix: 'lookups',
  worldSize: 5,
  trainTasks: 12,
  layout: 'varied',
  algo: 'sft',
  // tiny: varied prompts (closings up to ~90 tokens) do not fit nano's 256-token context.
  model: { preset: 'tiny' },
  seed: 5,
  provider: 'cpu',
  steps: 6,
  evalEvery: 0,
  checkpointEvery: 6,
  sft: { worldModelLoss: false, fixedLayoutSteps: 2, layoutRampSteps: 2 },
  rollout: { k: 1, tasksPerStep: 4, maxTurns: 3, maxTokensPerTurn: 64, maxObservationTokens: 64, toolSchemas: 'none' },
};

describe('layout curriculum', () => {
  it("records the same tasks in the fixed template: the varied run's ids, entities and gold calls, the family's one phrasing", async () => {
    const config = RunConfig.parse(shape);
    const varied = new RetailEnv({ worldMode: 'procedural', taskMix: 'lookups', worldSize: 5, seed: 5, layout: 'varied', counts: { train: 12 } });
    const fixed = new RetailEnv({ worldMode: 'procedural', taskMix: 'lookups', worldSize: 5, seed: 5, counts: { train: 12 } });
    const tasks = varied.tasks('train').map((t) => varied.task(t.id));
    const transcripts = await fixedLayoutTranscripts(config, tasks, 'none');
    expect(transcripts.map((t) => t.taskId)).toEqual(tasks.map((t) => t.id));
    for (const [i, t] of transcripts.entries()) {
      const f = fixed.task(t.taskId);
      expect(t.instruction).toBe(f.instruction);
      expect(f.gold).toEqual(tasks[i].gold);
      expect(f.meta?.params).toEqual(tasks[i].meta?.params);
    }
    // The varied layout does change the text: the curriculum has two renderings to move between.
    expect(tasks.filter((t, i) => t.instruction !== transcripts[i].instruction).length).toBeGreaterThan(6);
  });

  it('trains fixed rows through fixedLayoutSteps, a mix on the ramp, varied rows after it, and says so', { timeout: patience(300_000) }, async () => {
    const results: StepResult[] = [];
    const logs: string[] = [];
    await runTraining(RunConfig.parse(shape), {
      runDir: join(root, 'run'),
      signal: new AbortController().signal,
      onStep: (s) => results.push(s),
      onLog: (_level, m) => logs.push(m),
      onProgress: () => {},
    });
    const fixedRows = results.filter((r) => r.step > 0).map((r) => r.metrics.sft_fixed_layout_rows);
    expect(fixedRows).toHaveLength(6);
    expect(fixedRows.slice(0, 2)).toEqual([4, 4]);
    expect(fixedRows.slice(4)).toEqual([0, 0]);
    expect(logs.some((m) => /layout curriculum: steps 1–2 in the fixed template \(12 demonstrations\), then varied rows rise to all of them by step 4/.test(m))).toBe(true);
    // Both renderings were recorded through the real tools: 12 tasks × one look-up each, twice.
    expect(results.find((r) => r.step === 1)?.metrics.gather_env_calls).toBe(24);
  });

  it('refuses the curriculum on a fixed layout before anything trains', async () => {
    await expect(
      runTraining(RunConfig.parse({ ...shape, layout: 'fixed' }), {
        runDir: join(root, 'refused'),
        signal: new AbortController().signal,
        onStep: () => {},
        onLog: () => {},
        onProgress: () => {},
      }),
    ).rejects.toThrow(/set layout to varied/);
  });
});
