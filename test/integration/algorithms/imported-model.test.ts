// Training from an imported Hugging Face model: its own tokenizer (which lacks our role markers)
// gains them as special tokens, the embedding grows by mean-initialised rows, and the run trains,
// checkpoints, resumes and evaluates like a preset run.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunConfig, type RunConfigInput } from '../../../electron/contract';
import { type StepResult, runTraining } from '../../../electron/engine/algorithms/train';
import { NativePolicy } from '../../../electron/engine/algorithms/policy';
import { exportModel, hfShapeFromConfig, hfWeightsFromParams, importModel, loadModel, loadRunCheckpoint } from '../../../electron/engine/models';
import { evaluateOp } from '../../../electron/engine/compute/policy-ops';
import { preflight } from '../../../electron/engine/runs/preflight';
import { FROZEN_FILE, PRESETS, TextTokenizer, bpeTokenizerConfig, bpeTokenizerJson, exportHfFolder, initParams, loadCheckpoint, paramSpecs, resolveConfig, trainBpe } from '../../../native-models';
import { SPECIAL_TOKENS } from '../../../native-models/tokenizer';
import { demoCorpus, runDemonstrations } from '../../../electron/engine/algorithms/demos';
import { getEnv } from '../../../electron/engine/envs/registry';
import { envOptions } from '../../../electron/engine/algorithms/env-options';
import { patience } from '../../helpers/patience';

const root = mkdtempSync(join(tmpdir(), 'envace-imported-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const modelsDir = join(root, 'models');

const base: RunConfigInput = {
  env: 'retail',
  worldSize: 5,
  model: { imported: 'pretrained-nano' },
  seed: 2,
  provider: 'cpu',
  algo: 'sft',
  steps: 4,
  evalEvery: 4,
  checkpointEvery: 2,
  rollout: { k: 1, tasksPerStep: 2, maxTurns: 2, maxTokensPerTurn: 48, maxObservationTokens: 24, toolSchemas: 'none' },
  optim: { lr: 3e-3, warmupSteps: 0 },
};

async function train(overrides: Partial<RunConfigInput>, io: { runDir: string; resumeFromDir?: string }) {
  const steps: StepResult[] = [];
  // Step 0: the evaluation before training that a fresh run with evalEvery > 0 reports.
  let baseline: StepResult | undefined;
  const logs: string[] = [];
  const out = await runTraining(RunConfig.parse({ ...base, ...overrides }), {
    modelsDir,
    ...io,
    signal: new AbortController().signal,
    onStep: (s) => (s.step === 0 ? (baseline = s) : steps.push(s)),
    onLog: (_l, m) => logs.push(m),
    onProgress: () => {},
  });
  return { ...out, steps, baseline, logs };
}

// A "pretrained" model as a user would bring it: a byte-level BPE tokenizer with only its own
// <|endoftext|> special (none of our role markers) and a nano-sized Llama whose vocabulary is exactly
// the tokenizer's, so every new special token needs a new embedding row.
let vocab = 0;
beforeAll(async () => {
  const cfg = RunConfig.parse(base);
  const env = await getEnv('retail', envOptions(cfg));
  const texts = demoCorpus(await runDemonstrations(env, env.tasks('train').slice(0, 8).map((t) => env.task(t.id)), cfg.sft, 'none', 0));
  const bpe = trainBpe(texts, { vocabSize: 420, specialTokens: ['<|endoftext|>'] });
  const tokenizer = new TextTokenizer(bpeTokenizerJson(bpe), bpeTokenizerConfig(bpe, {}));
  vocab = tokenizer.vocabSize;
  const config = resolveConfig({ vocabSize: vocab, maxSeqLen: 256 }, PRESETS.nano);
  const hfDir = join(root, 'pretrained-nano');
  exportHfFolder(hfDir, { shape: hfShapeFromConfig(config), weights: hfWeightsFromParams(config, initParams(config, 9, 0.05)), tokenizer, modelCard: '# pretrained\n' });
  await importModel({ hfDir, modelsDir });
}, patience(120_000));

describe('a run that starts from an imported model', () => {
  it('adds the role markers its tokenizer lacks, each on a new row seeded from its word, and keeps every pretrained row', async () => {
    const model = loadModel(modelsDir, 'pretrained-nano');
    expect(SPECIAL_TOKENS.every((t) => model.tokenizer.tokenToId(t) === undefined)).toBe(true);
    const policy = await NativePolicy.fromPretrained(model, { seed: 0, optimizer: {}, knobs: {}, session: { provider: 'cpu' } });
    expect(policy.config.vocabSize).toBe(vocab + SPECIAL_TOKENS.length);
    expect(SPECIAL_TOKENS.map((t) => policy.tokenizer.tokenToId(t))).toEqual(SPECIAL_TOKENS.map((_, i) => vocab + i));
    // Text without markers tokenizes as before.
    expect(policy.tokenizer.encode('get_order_details')).toEqual(model.tokenizer.encode('get_order_details'));
    const dir = join(root, 'fresh');
    policy.save(join(dir, 'model'));
    const saved = loadCheckpoint(join(dir, 'model'), paramSpecs(policy.config).map((s) => ({ name: s.name, shape: [...s.shape], dtype: 'F32' as const }))).weights;
    const C = policy.config.dModel;
    const before = model.weights.get('model.embed_tokens.weight')!;
    const after = saved.get('model.embed_tokens.weight')!.data as Float32Array;
    expect(after.subarray(0, vocab * C)).toEqual(before);
    // Each marker's row is the mean of the rows of its word in the model's own tokenizer.
    const rowMean = (ids: number[]) => Array.from({ length: C }, (_, j) => ids.reduce((a, id) => a + before[id * C + j], 0) / ids.length);
    SPECIAL_TOKENS.forEach((marker, i) => {
      const word = model.tokenizer.encode(` ${marker.slice(2, -2)}`, { parseSpecial: false });
      expect(word.length).toBeGreaterThan(0);
      const want = rowMean(word);
      const row = after.subarray((vocab + i) * C, (vocab + i + 1) * C);
      expect(Math.max(...want.map((m, j) => Math.abs(row[j] - m))), marker).toBeLessThan(1e-6);
    });
    // So the markers start distinct from one another.
    const act = after.subarray((vocab + SPECIAL_TOKENS.indexOf('<|act|>')) * C, (vocab + SPECIAL_TOKENS.indexOf('<|act|>') + 1) * C);
    const obs = after.subarray((vocab + SPECIAL_TOKENS.indexOf('<|obs|>')) * C, (vocab + SPECIAL_TOKENS.indexOf('<|obs|>') + 1) * C);
    expect(act).not.toEqual(obs);
    await policy.release();
  });

  it('trains, checkpoints with the grown tokenizer, resumes and evaluates', async () => {
    const runDir = join(root, 'run');
    const first = await train({}, { runDir });
    expect(first.finalStep).toBe(4);
    expect(first.logs.join('\n')).toMatch(/model: imported model pretrained-nano \(\d+-token vocabulary/);
    // 4 steps × 2 rows of 200 training tasks: only tasks enough for 8 demonstrations that fit are recorded.
    expect(first.logs.join('\n')).toMatch(/sft: recorded \d+ of 200 training tasks, until 8 demonstrations fit \(8 rows to train\)/);
    expect(first.steps[3].metrics.loss).toBeLessThan(first.steps[0].metrics.loss);
    expect(first.steps[3].metrics['eval/success']).toBeDefined();
    // The untrained import is evaluated before step 1, as step 0: held-out figures only, no checkpoint, no rollouts.
    expect(first.baseline).toMatchObject({ step: 0, rollouts: [] });
    expect(Object.keys(first.baseline!.metrics).sort()).toEqual(['eval/env_failures', 'eval/invalid_action_rate', 'eval/score', 'eval/success']);
    expect(first.baseline!.checkpoint).toBeUndefined();
    // Resume from step 2: the checkpoint carries the grown config and tokenizer; steps 3–4 repeat exactly.
    const resumed = await train({}, { runDir: join(root, 'run-resumed'), resumeFromDir: join(runDir, 'checkpoints', 'step-2') });
    expect(resumed.steps.map((s) => s.step)).toEqual([3, 4]);
    expect(resumed.baseline, 'a resumed run is not evaluated again before training').toBeUndefined();
    expect(resumed.steps[1].metrics.loss).toBeCloseTo(first.steps[3].metrics.loss, 5);
    const evaluated = await evaluateOp({
      config: RunConfig.parse(base),
      checkpointDir: join(runDir, 'checkpoints', 'step-4'),
      split: 'heldout',
      limit: 2,
      rehearsals: 0,
      mode: 'parallel',
      commit: 'prompt',
      seed: 0,
    });
    expect(evaluated.tasks).toBe(2);
  }, patience(300_000));

  it('trains rank-4 LoRA adapters on the frozen import: the checkpoint is whole, resumes, and exports merged', async () => {
    const runDir = join(root, 'lora-run');
    const lora = { rank: 4, alpha: 8, targets: 'attention' as const };
    const run = await train({ lora }, { runDir });
    expect(run.logs.join('\n')).toMatch(/with rank-4 LoRA adapters on q_proj, k_proj, v_proj, o_proj/);
    expect(run.steps[3].metrics.loss).toBeLessThan(run.steps[0].metrics.loss);
    const ckpt = join(runDir, 'checkpoints', 'step-4');
    expect(existsSync(join(ckpt, 'model', FROZEN_FILE))).toBe(true);
    // Only adapters moved: every frozen weight is the imported (grown) one.
    const fresh = await NativePolicy.fromPretrained(loadModel(modelsDir, 'pretrained-nano'), { seed: 0, optimizer: {}, knobs: {}, session: { provider: 'cpu' } }, { rank: 4, alpha: 8, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] });
    const start = join(root, 'lora-start');
    fresh.save(join(start, 'model'));
    await fresh.release();
    const specs = paramSpecs(fresh.config);
    const spec = (x: (typeof specs)[number]) => ({ name: x.name, shape: [...x.shape], dtype: 'F32' as const });
    const load = (dir: string) => loadCheckpoint(join(dir, 'model'), specs.filter((x) => x.trainable).map(spec), specs.filter((x) => !x.trainable).map(spec));
    const [before, after] = [load(start), load(ckpt)];
    expect(specs.filter((x) => x.trainable).every((x) => x.name.includes('.lora_'))).toBe(true);
    for (const [name, t] of before.frozen!) expect(after.frozen!.get(name)!.data, name).toEqual(t.data);
    expect(after.weights.get('model.layers.0.self_attn.q_proj.lora_B.weight')!.data).not.toEqual(before.weights.get('model.layers.0.self_attn.q_proj.lora_B.weight')!.data);
    // Resume from step 2 repeats steps 3–4.
    const resumed = await train({ lora }, { runDir: join(root, 'lora-resumed'), resumeFromDir: join(runDir, 'checkpoints', 'step-2') });
    expect(resumed.steps[1].metrics.loss).toBeCloseTo(run.steps[3].metrics.loss, 5);
    // Exported as a Hugging Face folder: adapters merged into the base, the markers in the tokenizer.
    const model = loadRunCheckpoint(ckpt);
    const out = join(root, 'lora-hf');
    await exportModel({ ...model, format: 'hf', outDir: out });
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as { vocab_size: number };
    expect(config.vocab_size).toBe(vocab + SPECIAL_TOKENS.length);
    expect(JSON.parse(readFileSync(join(out, 'tokenizer.json'), 'utf8')).added_tokens.map((t: { content: string }) => t.content)).toEqual(expect.arrayContaining([...SPECIAL_TOKENS]));
  }, patience(300_000));

  it('refuses adapters on a from-scratch preset and counts adapter-only optimiser state', async () => {
    const onPreset = RunConfig.parse({ ...base, model: { preset: 'nano' }, lora: { rank: 4 } });
    expect((await preflight(onPreset, modelsDir)).checks.find((c) => c.name === 'model')?.detail).toMatch(/LoRA adapters train on a pretrained model/);
    await expect(train({ model: { preset: 'nano' }, lora: { rank: 4 } }, { runDir: join(root, 'lora-preset') })).rejects.toThrow(/LoRA adapters train on a pretrained model/);
    const full = await preflight(RunConfig.parse(base), modelsDir);
    const adapters = await preflight(RunConfig.parse({ ...base, lora: { rank: 4 } }), modelsDir);
    expect(adapters.memoryEstimateBytes!).toBeLessThan(full.memoryEstimateBytes!);
  });

  it('says which model is missing, in pre-flight and when the run starts', async () => {
    const missing = RunConfig.parse({ ...base, model: { imported: 'no-such-model' } });
    const checks = await preflight(missing, modelsDir);
    expect(checks.ok).toBe(false);
    expect(checks.checks.find((c) => c.name === 'model')?.detail).toMatch(/no imported model named "no-such-model"/);
    const good = await preflight(RunConfig.parse(base), modelsDir);
    expect(good.checks.find((c) => c.name === 'tokenizer')?.detail).toMatch(/8 role markers .* are added as special tokens/);
    expect(good.params).toBeGreaterThan(0);
    await expect(train({ model: { imported: 'no-such-model' } }, { runDir: join(root, 'missing') })).rejects.toThrow(/cannot load imported model "no-such-model"/);
  });
});
