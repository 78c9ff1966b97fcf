import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunConfig, type RunConfigInput } from '../../../electron/contract';
import { preflight } from '../../../electron/engine/runs/preflight';
import { BENCH, checkpointCounts, FORMAT_SFT_STEPS, stageEnds, stageLayout } from '../../../electron/engine/runs/preflight-training';
import { planStages } from '../../../electron/engine/algorithms/train';
import { Algo } from '../../../electron/contract';
import { demoCorpus, runDemonstrations } from '../../../electron/engine/algorithms/demos';
import { envOptions } from '../../../electron/engine/algorithms/env-options';
import { getEnv } from '../../../electron/engine/envs/registry';
import { hfShapeFromConfig, hfWeightsFromParams, importModel } from '../../../electron/engine/models';
import { PRESETS, TextTokenizer, bpeTokenizerConfig, bpeTokenizerJson, exportHfFolder, initParams, resolveConfig, trainBpe } from '../../../native-models';
import { patience } from '../../helpers/patience';

const run = (config: RunConfigInput) => preflight(RunConfig.parse(config));
const failed = (r: Awaited<ReturnType<typeof run>>) => r.checks.filter((c) => !c.ok);

// A retail shape nano trains (the kill-resume test's): no tool schemas, observations cut to 24 tokens.
const fits: RunConfigInput = {
  env: 'retail',
  worldSize: 5,
  model: { preset: 'nano' },
  algo: 'sft+envace',
  sft: { steps: 100 },
  steps: 4,
  rollout: { k: 2, tasksPerStep: 2, maxTurns: 2, maxTokensPerTurn: 48, maxObservationTokens: 24, toolSchemas: 'none' },
};

describe('pre-flight refuses what would fail a run at step 0, naming the knob', () => {
  it('sft+envace with sft.steps 0', async () => {
    const r = await run({ ...fits, sft: { steps: 0 } });
    expect(r.ok).toBe(false);
    expect(failed(r).map((c) => [c.name, c.detail])).toEqual([['stages', 'sft+envace needs sft.steps ≥ 1']]);
  });

  it('rwml+grpo-real with rwml.stageSteps 0', async () => {
    const r = await run({ ...fits, algo: 'rwml+grpo-real', rwml: { stageSteps: 0 } });
    expect(failed(r).map((c) => [c.name, c.detail])).toEqual([['stages', 'rwml+grpo-real needs rwml.stageSteps ≥ 1']]);
    expect((await run({ ...fits, algo: 'rwml+grpo-real', rwml: { stageSteps: 2 } })).checks.find((c) => c.name === 'stages')).toMatchObject({ ok: true, detail: 'sft × 100 → rwml × 2 → grpo-real × 4' });
  });

  it("retail on nano with the default knobs: no demonstration and no prompt fits the 256-token context", async () => {
    const r = await run({ env: 'retail', model: { preset: 'nano' }, algo: 'sft+envace', sft: { steps: 100 } });
    expect(r.ok).toBe(false);
    const demos = r.checks.find((c) => c.name === 'demonstrations fit')!;
    expect(demos.ok).toBe(false);
    expect(demos.detail).toMatch(/^no expert demonstration of retail fits the model's context of 256 tokens: the shortest prompt and first act take \d+/);
    for (const knob of ["rollout.toolSchemas 'compact' → 'none'", 'rollout.maxObservationTokens (now 256)', 'a preset with a longer context']) expect(demos.detail).toContain(knob);
    expect(r.checks.find((c) => c.name === 'context')).toMatchObject({ ok: false, detail: expect.stringMatching(/task prompts do not fit the model's context of 256 tokens/) });
  }, patience(60_000));

  it('the same env and model with the knobs that fit passes, and says how it counted', async () => {
    const r = await run(fits);
    expect(failed(r)).toEqual([]);
    expect(r.checks.find((c) => c.name === 'demonstrations fit')?.detail).toMatch(/^\d+ of \d+ demonstrations fit the context of 256 tokens.*byte-level BPE \(\d+ ids\)/);
    expect(r.checks.find((c) => c.name === 'context')?.ok).toBe(true);
  }, patience(60_000));

  it('a demonstration budget too short to record them all counts on an even sample and says so', async () => {
    const r = await run({ ...fits, worldSize: 8 });
    const sampled = await preflight(RunConfig.parse({ ...fits, worldSize: 8 }), undefined, { demoBudgetMs: 0 });
    expect(sampled.checks.find((c) => c.name === 'demonstrations fit')?.detail).toMatch(/trained on 4 of the \d+ demonstrations/);
    expect(r.checks.find((c) => c.name === 'demonstrations fit')?.detail).not.toMatch(/ of the \d+ demonstrations/);
  }, patience(60_000));
});

// Pre-flight runs on the engine's main thread, which must not load the model stack, so it restates
// two rules from modules that do; these pin the restatements to the originals.
describe('rules pre-flight shares with training', () => {
  it('stageLayout lays out and refuses exactly as planStages, for every method', () => {
    for (const algo of Algo.options)
      for (const sftSteps of [0, 3])
        for (const stageSteps of [0, 2]) {
          const config = RunConfig.parse({ env: 'mock', algo, steps: 5, sft: { steps: sftSteps }, rwml: { stageSteps } });
          let expected: ReturnType<typeof stageLayout>;
          try {
            expected = { stages: planStages(config).map((st) => ({ algo: st.algo, steps: st.last - st.first + 1 })), problem: null };
          } catch (error) {
            expected = { stages: [], problem: (error as Error).message };
          }
          expect(stageLayout(config), `${algo} sft ${sftSteps} rwml ${stageSteps}`).toEqual(expected);
          if (!expected.problem) expect(stageEnds(config)).toEqual(planStages(config).slice(0, -1).map((st) => st.last));
        }
  });
});

describe('format budget (a heuristic caution, not a refusal)', () => {
  it('warns below the per-preset SFT threshold, names the knob, and stays quiet at it', async () => {
    const short = await run({ ...fits, sft: { steps: 10 } });
    expect(short.ok).toBe(true);
    expect(short.checks.find((c) => c.name === 'format budget')).toMatchObject({ ok: true, warning: true, detail: expect.stringContaining('raise sft.steps') });
    expect((await run({ ...fits, sft: { steps: FORMAT_SFT_STEPS.nano } })).checks.find((c) => c.name === 'format budget')).toBeUndefined();
    expect((await run({ ...fits, algo: 'sft', steps: 20 })).checks.find((c) => c.name === 'format budget')?.detail).toContain('raise steps');
  }, patience(60_000));
});

describe('time and disk estimate', () => {
  it('counts checkpoints written and kept by the retention knobs', () => {
    const c = (x: Partial<RunConfigInput>) => checkpointCounts(RunConfig.parse({ env: 'mock', algo: 'sft', steps: 45, checkpointEvery: 10, ...x }));
    expect(c({})).toEqual({ written: 5, kept: 3 });
    expect(c({ evalEvery: 5 })).toEqual({ written: 5, kept: 4 });
    expect(c({ evalEvery: 5, checkpointKeepBest: false, checkpointKeepLast: 10 })).toEqual({ written: 5, kept: 5 });
    // A stage end on a checkpoint step (an SFT warm start's last step) is kept too; one between checkpoints is never written.
    const chain = (ends: number[]) => checkpointCounts(RunConfig.parse({ env: 'mock', algo: 'sft+envace', sft: { steps: 10 }, steps: 80, checkpointEvery: 10 }), ends);
    expect(chain([10])).toEqual({ written: 9, kept: 4 });
    expect(chain([15])).toEqual({ written: 9, kept: 3 });
  });

  it('is present, says how it was made, and grows with the budget', async () => {
    const r = await run(fits);
    const e = r.estimate!;
    expect(e.secondsBasis).toContain(`train ${BENCH.nano.train} tokens/s`);
    // 104 steps, a checkpoint every 10 and the last; the SFT stage ends on step 100, a checkpoint step.
    expect(e.diskBasis).toMatch(/^4 of 11 checkpoints kept \(checkpointKeepLast 3 \(checkpointKeepBest needs evalEvery > 0\) \+ the end of each stage before the last\)/);
    expect(e.diskBytes).toBe(4 * e.checkpointBytes!);
    // nano: about 0.2M float32 weights, ×3 with both AdamW moments.
    expect(e.checkpointBytes).toBeGreaterThan(1e6);
    expect(e.checkpointBytes).toBeLessThan(4e6);
    const longer = (await run({ ...fits, sft: { steps: 400 }, steps: 40 })).estimate!;
    expect(longer.seconds!).toBeGreaterThan(3 * e.seconds!);
    // 100 SFT steps of 4 rows of at most 256 tokens at 5,700 tokens/s, plus 4 short RL steps: seconds, not hours.
    expect(e.seconds!).toBeGreaterThan(2);
    expect(e.seconds!).toBeLessThan(60);
  }, patience(60_000));

  it('leaves time unestimated when the stages are refused', async () => {
    expect((await run({ ...fits, sft: { steps: 0 } })).estimate).toMatchObject({ seconds: null, secondsBasis: expect.stringContaining('no estimate') });
  });
});

describe('an imported model’s context', () => {
  let root = '';
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'envace-preflight-imported-'));
    // A byte-level BPE of its own (no role markers) and a nano-sized model with a 128-token context.
    const env = await getEnv('retail', envOptions(RunConfig.parse(fits)));
    const texts = demoCorpus(await runDemonstrations(env, env.tasks('train').slice(0, 8).map((t) => env.task(t.id)), RunConfig.parse(fits).sft, 'none', 0));
    const bpe = trainBpe(texts, { vocabSize: 420, specialTokens: ['<|endoftext|>'] });
    const tokenizer = new TextTokenizer(bpeTokenizerJson(bpe), bpeTokenizerConfig(bpe, {}));
    const config = resolveConfig({ vocabSize: tokenizer.vocabSize, maxSeqLen: 128 }, PRESETS.nano);
    const hfDir = join(root, 'short-context');
    exportHfFolder(hfDir, { shape: hfShapeFromConfig(config), weights: hfWeightsFromParams(config, initParams(config, 9, 0.05)), tokenizer, modelCard: '# short\n' });
    await importModel({ hfDir, modelsDir: join(root, 'models') });
  }, patience(120_000));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is counted with the model’s own tokenizer and refused when the prompts do not fit, naming the model', async () => {
    const r = await preflight(RunConfig.parse({ ...fits, model: { imported: 'short-context' }, rollout: { ...fits.rollout, toolSchemas: 'full' } }), join(root, 'models'));
    const context = r.checks.find((c) => c.name === 'context')!;
    expect(context.ok).toBe(false);
    expect(context.detail).toMatch(/the model's context of 128 tokens .*counted with short-context's tokenizer/);
    expect(context.detail).toContain("an imported model with a longer context than short-context's 128 tokens");
    expect(context.detail).toContain("rollout.toolSchemas 'full' → 'none'");
    // No format caution for a pretrained model, and its size scales the time estimate.
    expect(r.checks.find((c) => c.name === 'format budget')).toBeUndefined();
    expect(r.estimate!.secondsBasis).toMatch(/small's bench figures scaled to 0\.\dM parameters/);
  }, patience(60_000));
});
