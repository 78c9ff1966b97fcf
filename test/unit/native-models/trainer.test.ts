import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../../native-models/presets';
import { Trainer } from '../../../native-models/trainer';
import { resolveConfig } from '../../../native-models/transformer/config';
import { BatchError } from '../../../native-models/training/batch';
import { maxAbsDiff } from './support';

const nano = PRESETS.nano;
const CORPUS = Array.from(Buffer.from('the quick brown fox jumps over the lazy dog. '.repeat(3)));
const ROWS = [0, 5, 11, 17].map((o) => CORPUS.slice(o, o + 48));
const sftBatch = (rows: number[][]) => ({ tokens: rows, sftMask: rows.map((r) => r.map(() => 1)) });

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('Trainer', () => {
  it('overfits a fixed corpus: SFT loss from ~ln(256) to below 0.8 within 50 steps', async () => {
    const t = await Trainer.create({ config: nano, objective: { sft: { aggregation: 'token-mean' } }, optimizer: { lr: 3e-3, warmupSteps: 5, totalSteps: 50, weightDecay: 0 }, seed: 1 });
    const first = await t.trainStep(sftBatch(ROWS));
    expect(first.loss).toBeGreaterThan(Math.log(256) - 0.3);
    let last = first;
    for (let i = 1; i < 50; i++) last = await t.trainStep(sftBatch(ROWS));
    expect(last.loss).toBeLessThan(0.8);
    expect(last.step).toBe(50);
    expect(last.terms.sft).toBeCloseTo(last.loss, 5);
  });

  it('accumulating two micro-batches gives the same update as one batch (token-mean normalised over the step)', async () => {
    const opts = { config: nano, objective: { sft: { aggregation: 'token-mean' as const } }, optimizer: { lr: 1e-2, weightDecay: 0.1 }, seed: 3 };
    const [whole, split] = [await Trainer.create(opts), await Trainer.create(opts)];
    const rows = [ROWS[0], ROWS[1].slice(0, 30), ROWS[2], ROWS[3].slice(0, 20)];
    const a = await whole.trainStep(sftBatch(rows));
    const b = await split.trainStep([sftBatch(rows.slice(0, 1)), sftBatch(rows.slice(1))]);
    expect(b.microBatches).toBe(2);
    expect(b.loss).toBeCloseTo(a.loss, 5);
    expect(b.gradNorm).toBeCloseTo(a.gradNorm, 4);
    // Adam divides each coordinate by its own gradient scale, so float32 rounding in tiny gradients
    // can move a weight by ~lr·1e-3; a wrong normaliser would move whole tensors by ~lr.
    const [pa, pb] = [whole.getParams(), split.getParams()];
    for (const [name, v] of pa) expect(maxAbsDiff(v, pb.get(name)!), name).toBeLessThan(1e-5);
  });

  it('logprobs() agrees with the SFT loss on the same rows and is aligned with the tokens', async () => {
    const t = await Trainer.create({ config: nano, objective: { sft: { aggregation: 'token-mean' } }, optimizer: { lr: 0 }, seed: 5 });
    const rows = [ROWS[0].slice(0, 10), ROWS[1].slice(0, 6)];
    const { logprobs, entropy } = await t.logprobs(rows);
    expect(logprobs.map((r) => r.length)).toEqual([10, 6]);
    expect(logprobs[0][0]).toBe(0);
    const predicted = logprobs.flatMap((r) => r.slice(1));
    const stats = await t.trainStep(sftBatch(rows));
    expect(stats.loss).toBeCloseTo(-predicted.reduce((a, b) => a + b, 0) / predicted.length, 5);
    expect(stats.tokens).toBe(9 + 5);
    entropy.flatMap((r) => r.slice(1)).forEach((h) => expect(h).toBeGreaterThan(0));
  });

  it('with LoRA trains only the adapters and leaves base weights untouched', async () => {
    const config = resolveConfig({ lora: { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj'] } }, nano);
    const t = await Trainer.create({ config, objective: { sft: { aggregation: 'token-mean' } }, optimizer: { lr: 1e-2 }, seed: 2 });
    const before = t.getParams();
    await t.trainStep(sftBatch(ROWS));
    await t.trainStep(sftBatch(ROWS));
    const after = t.getParams();
    for (const [name, v] of before) {
      const changed = maxAbsDiff(v, after.get(name)!) > 0;
      expect(changed, name).toBe(name.includes('lora_'));
    }
  });

  it('runs the RL objective (clipped surrogate + KL) and reports clip statistics', async () => {
    const t = await Trainer.create({ config: nano, objective: { pg: { aggregation: 'seq-mean-token-mean', kl: 'k3' } }, knobs: { klBeta: 0.1 }, seed: 4 });
    const rows = ROWS.map((r) => r.slice(0, 12));
    const { logprobs } = await t.logprobs(rows);
    const stats = await t.trainStep({
      tokens: rows,
      pgMask: rows.map((r) => r.map((_, i) => (i >= 4 ? 1 : 0))),
      advantages: rows.map((r, b) => r.map(() => (b % 2 ? 1 : -1))),
      oldLogprobs: logprobs,
      refLogprobs: logprobs,
    });
    // On-policy: ratio 1, nothing clipped, KL 0.
    expect(stats.ratioMean).toBeCloseTo(1, 5);
    expect(stats.clipFrac).toBe(0);
    expect(stats.terms.kl).toBeCloseTo(0, 6);
    expect(stats.gradNorm).toBeGreaterThan(0);
  });

  it('save/load restores weights, moments and step so training continues identically', async () => {
    const opts = { config: nano, objective: { sft: { aggregation: 'token-mean' as const } }, optimizer: { lr: 5e-3 }, seed: 6 };
    const a = await Trainer.create(opts);
    await a.trainStep(sftBatch(ROWS));
    const dir = mkdtempSync(join(tmpdir(), 'envace-trainer-'));
    dirs.push(dir);
    a.save(join(dir, 'ck'));
    const b = await Trainer.create({ ...opts, seed: 99 });
    b.load(join(dir, 'ck'));
    expect(b.currentStep).toBe(1);
    const [sa, sb] = [await a.trainStep(sftBatch(ROWS)), await b.trainStep(sftBatch(ROWS))];
    expect(sb.loss).toBeCloseTo(sa.loss, 6);
    for (const [name, v] of a.getParams()) expect(maxAbsDiff(v, b.getParams().get(name)!), name).toBeLessThan(1e-7);
  });

  it('rejects bad batches and parameters with clear errors', async () => {
    const t = await Trainer.create({ config: nano, objective: { sft: { aggregation: 'token-mean' } } });
    await expect(t.trainStep({ tokens: [[1, 2, 3]] })).rejects.toThrow(/lacks sft_mask required by the objective/);
    await expect(t.trainStep(sftBatch([[1, 999]]))).rejects.toThrow(BatchError);
    await expect(t.trainStep({ tokens: [[1, 2, 3]], sftMask: [[1, 1]] })).rejects.toThrow(/sftMask row 0 has 2 entries, tokens row has 3/);
    await expect(t.trainStep(sftBatch([[7]]))).rejects.toThrow(/at least 2 are needed/);
    const p = t.getParams();
    p.set('model.norm.weight', new Float32Array(3));
    expect(() => t.setParams(p)).toThrow(/model\.norm\.weight must be a Float32Array of 64 values/);
  });
});

describe('Trainer with imported base weights', () => {
  it('adds LoRA adapters to given base weights and starts equal to the base model', async () => {
    const base = await Trainer.create({ config: nano, objective: { sft: { aggregation: 'token-mean' } }, seed: 8 });
    const config = resolveConfig({ lora: { rank: 2, alpha: 4, targets: ['q_proj', 'down_proj'] } }, nano);
    const adapted = await Trainer.create({ config, objective: { sft: { aggregation: 'token-mean' } }, params: base.getParams() });
    const rows = [ROWS[0].slice(0, 9)];
    const [a, b] = [await base.logprobs(rows), await adapted.logprobs(rows)];
    expect(maxAbsDiff(a.logprobs[0], b.logprobs[0])).toBeLessThan(1e-6);
    const partial = base.getParams();
    partial.delete('model.norm.weight');
    await expect(Trainer.create({ config, objective: { sft: { aggregation: 'token-mean' } }, params: partial })).rejects.toThrow(/missing parameter model\.norm\.weight/);
  });
});

describe('Trainer.generate', () => {
  it('learns to continue the corpus: greedy generation reproduces it after overfitting', async () => {
    const t = await Trainer.create({ config: nano, objective: { sft: { aggregation: 'token-mean' } }, optimizer: { lr: 3e-3, warmupSteps: 5, totalSteps: 80, weightDecay: 0 }, seed: 1 });
    for (let i = 0; i < 80; i++) await t.trainStep(sftBatch(ROWS));
    const prompt = ROWS[0].slice(0, 12);
    const [out] = await t.generate([prompt], { maxNewTokens: 10, temperature: 0 });
    const expected = ROWS[0].slice(12, 22);
    const matches = out.tokens.filter((tok, i) => tok === expected[i]).length;
    expect(matches).toBeGreaterThanOrEqual(8);
  });
});
