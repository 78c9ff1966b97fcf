// Per-stage optimiser state in the trainer: a learning rate set from outside, and moments zeroed
// with Adam's bias correction restarting, so a reset trainer updates exactly like a fresh one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../../native-models/presets';
import { Trainer } from '../../../native-models/trainer';

const nano = PRESETS.nano;
const CORPUS = Array.from(Buffer.from('the quick brown fox jumps over the lazy dog. '.repeat(3)));
const batch = (offset: number) => {
  const rows = [0, 7, 13].map((o) => CORPUS.slice(o + offset, o + offset + 40));
  return { tokens: rows, sftMask: rows.map((r) => r.map(() => 1)) };
};
const opts = { config: nano, objective: { sft: { aggregation: 'token-mean' as const } }, optimizer: { lr: 3e-3, warmupSteps: 2, totalSteps: 10, weightDecay: 0.01 }, seed: 5 };
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function sameParams(a: Trainer, b: Trainer): void {
  const pb = b.getParams();
  for (const [name, v] of a.getParams()) expect(Buffer.from(v.buffer).equals(Buffer.from(pb.get(name)!.buffer)), name).toBe(true);
}

describe('Trainer stage state', () => {
  it('after resetMoments and a set learning rate, the next update equals a fresh trainer’s first update from the same weights', async () => {
    const used = await Trainer.create(opts);
    for (let i = 0; i < 3; i++) await used.trainStep(batch(i));
    const fresh = await Trainer.create({ ...opts, params: used.getParams() });
    used.resetMoments();
    used.setLearningRate(1e-3);
    fresh.setLearningRate(1e-3);
    const a = await used.trainStep(batch(5));
    const b = await fresh.trainStep(batch(5));
    expect(b.loss).toBe(a.loss); // same weights, same batch
    expect(a.lr).toBe(1e-3);
    expect(a.step).toBe(4); // the run's step count goes on; only Adam's restarts
    sameParams(used, fresh);
    // Without the reset, the carried moments make a different update.
    const carried = await Trainer.create(opts);
    for (let i = 0; i < 3; i++) await carried.trainStep(batch(i));
    carried.setLearningRate(1e-3);
    await carried.trainStep(batch(5));
    expect(Buffer.from(carried.getParams().get('model.embed_tokens.weight')!.buffer).equals(Buffer.from(fresh.getParams().get('model.embed_tokens.weight')!.buffer))).toBe(false);
  });

  it('a checkpoint keeps the reset: a trainer loaded from it continues exactly', async () => {
    const a = await Trainer.create(opts);
    for (let i = 0; i < 2; i++) await a.trainStep(batch(i));
    a.resetMoments();
    await a.trainStep(batch(3));
    const dir = mkdtempSync(join(tmpdir(), 'envace-trainer-stage-'));
    dirs.push(dir);
    a.save(join(dir, 'ck'));
    const b = await Trainer.create(opts);
    b.load(join(dir, 'ck'));
    for (const t of [a, b]) t.setLearningRate(2e-3);
    await a.trainStep(batch(4));
    await b.trainStep(batch(4));
    sameParams(a, b);
  });
});
