// The resident key/value cache (fixed-capacity slots kept on the JS side, one new key/value per
// step) against the exported growing-cache interface: same logits, tokens and log-probs.
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../../../native-models/presets';
import { Generator } from '../../../../native-models/runtime/generate';
import { headDim, paramSpecs, resolveConfig } from '../../../../native-models/transformer/config';
import { buildDecodeGraph, buildResidentDecodeGraph } from '../../../../native-models/transformer/graphs';
import { initParams } from '../../../../native-models/transformer/init';
import { compile, maxAbsDiff, ortTensor, randomArray, rng } from '../support';

// Two KV heads serving two query heads each, so the per-KV-head grouping of queries is exercised.
const config = resolveConfig({ qkvBias: true }, PRESETS.nano);
const params = initParams(config, 5, 0.3);
const [KV, D] = [config.nKvHeads, headDim(config)];

describe('resident decode graph', () => {
  it('gives the growing graph’s logits and new key/value, whatever the unused and masked slots hold', async () => {
    const growing = await compile(buildDecodeGraph(config));
    const resident = await compile(buildResidentDecodeGraph(config));
    const weights = Object.fromEntries(paramSpecs(config).map((s) => [s.name, ortTensor('float32', params.get(s.name)!, s.shape)]));
    const [B, P, S] = [2, 3, 7];
    const rand = rng(3);
    // Row 1 has a padded first slot; slots P..S-1 hold junk that must not leak into the result.
    const pastMask = [[1, 1, 1], [0, 1, 1]];
    const step = { input_ids: ortTensor('int64', [9, 200], [B, 1]), position_ids: ortTensor('int64', [3, 2], [B, 1]) };
    const growingFeeds: Record<string, ReturnType<typeof ortTensor>> = { ...weights, ...step, attention_mask: ortTensor('int64', pastMask.flatMap((r) => [...r, 1]), [B, P + 1]) };
    const residentFeeds: Record<string, ReturnType<typeof ortTensor>> = { ...weights, ...step, attention_mask: ortTensor('int64', pastMask.flatMap((r) => [...r, 0, 0, 0, 0]), [B, S]) };
    for (let i = 0; i < config.nLayers; i++)
      for (const kind of ['key', 'value']) {
        const past = randomArray(B * KV * P * D, rand);
        const slots = randomArray(B * KV * S * D, rand, 50, 100);
        for (let r = 0; r < B * KV; r++) slots.splice(r * S * D, P * D, ...past.slice(r * P * D, (r + 1) * P * D));
        growingFeeds[`past_key_values.${i}.${kind}`] = ortTensor('float32', past, [B, KV, P, D]);
        residentFeeds[`cache.${i}.${kind}`] = ortTensor('float32', slots, [B, KV, S, D]);
      }
    const a = await growing.run(growingFeeds);
    const b = await resident.run(residentFeeds);
    expect(maxAbsDiff(a.logits.data as Float32Array, b.logits.data as Float32Array)).toBeLessThan(1e-4);
    for (let i = 0; i < config.nLayers; i++)
      for (const kind of ['key', 'value']) {
        const present = a[`present.${i}.${kind}`].data as Float32Array; // [B,KV,P+1,D]
        const last = Array.from({ length: B * KV }, (_, r) => [...present.subarray((r * (P + 1) + P) * D, (r * (P + 1) + P + 1) * D)]).flat();
        expect(b[`step.${i}.${kind}`].dims).toEqual([B, KV, 1, D]);
        expect(maxAbsDiff(last, b[`step.${i}.${kind}`].data as Float32Array)).toBeLessThan(1e-5);
      }
  });
});

describe('Generator with a resident cache', () => {
  const prompts = [[5, 17, 99, 3, 42, 8, 1], [7, 8, 200], [250]];

  it('generates the growing cache’s greedy tokens, log-probs and per-step logits on ragged prompts', async () => {
    const growing = await Generator.create(config, {}, { kvCache: 'growing' });
    const resident = await Generator.create(config);
    expect([growing.kvCache, resident.kvCache]).toEqual(['growing', 'resident']);
    const logits: Float32Array[][] = [[], []];
    const a = await growing.generate(params, prompts, { maxNewTokens: 12, temperature: 0, onStep: (_, l) => logits[0].push(l.slice()) });
    const b = await resident.generate(params, prompts, { maxNewTokens: 12, temperature: 0, onStep: (_, l) => logits[1].push(l.slice()) });
    expect(b.map((g) => g.tokens)).toEqual(a.map((g) => g.tokens));
    expect(logits[1].length).toBe(logits[0].length);
    logits[0].forEach((l, step) => expect(maxAbsDiff(l, logits[1][step]), `step ${step}`).toBeLessThan(1e-4));
    b.forEach((g, row) => g.logprobs.forEach((lp, j) => expect(lp, `row ${row} token ${j}`).toBeCloseTo(a[row].logprobs[j], 4)));
  });

  it('samples the same tokens from the same seed, including rows that stop early', async () => {
    const growing = await Generator.create(config, {}, { kvCache: 'growing' });
    const resident = await Generator.create(config);
    const o = { maxNewTokens: 10, temperature: 1, topK: 20, seed: 4 };
    const free = await growing.generate(params, prompts, o);
    const stopTokenIds = [free[1].tokens[3]];
    const a = await growing.generate(params, prompts, { ...o, stopTokenIds });
    const b = await resident.generate(params, prompts, { ...o, stopTokenIds });
    expect(a[1].finishReason).toBe('stop');
    expect(b.map((g) => [g.tokens, g.finishReason])).toEqual(a.map((g) => [g.tokens, g.finishReason]));
    b.forEach((g, row) => g.logprobs.forEach((lp, j) => expect(lp).toBeCloseTo(a[row].logprobs[j], 4)));
  });

  it('bakes the weights into its step session and rebuilds it when they change, new arrays or overwritten in place', async () => {
    const fed = await Generator.create(config, {}, { weights: 'fed' });
    const baked = await Generator.create(config, {}, { weights: 'baked' });
    expect([fed.weights, baked.weights]).toEqual(['fed', 'baked']);
    const o = { maxNewTokens: 10, temperature: 0 };
    const same = async (p: typeof params) => {
      const [a, b] = [await fed.generate(p, prompts, o), await baked.generate(p, prompts, o)];
      expect(b.map((g) => g.tokens)).toEqual(a.map((g) => g.tokens));
      b.forEach((g, row) => g.logprobs.forEach((lp, j) => expect(lp).toBeCloseTo(a[row].logprobs[j], 4)));
      return a.map((g) => g.tokens);
    };
    const before = await same(params);
    // An optimiser step hands over new arrays.
    const other = initParams(config, 6, 0.3);
    const after = await same(other);
    expect(after).not.toEqual(before);
    // The same arrays with new values (copied in place) must not reuse the old session either.
    const inPlace = new Map([...params].map(([k, v]) => [k, v.slice()]));
    await same(inPlace);
    for (const [k, v] of inPlace) v.set(other.get(k)!);
    expect(await same(inPlace)).toEqual(after);
    await Promise.all([fed.release(), baked.release()]);
  });

  it('auto: feeds the weights to a short call and bakes them for a long one, whatever ran before', async () => {
    const gen = await Generator.create(config);
    const fed = await Generator.create(config, {}, { weights: 'fed' });
    expect(gen.weights).toBe('auto');
    const short = { maxNewTokens: 6, temperature: 0 };
    const long = { maxNewTokens: 100, temperature: 0 };
    const first = await gen.generate(params, prompts, short);
    expect(gen.lastStepWeights).toBe('fed');
    const longOut = await gen.generate(params, [[1, 2, 3]], long);
    expect(gen.lastStepWeights).toBe('baked');
    // A short call after the long one is still fed: the same output as before, bit for bit.
    expect(await gen.generate(params, prompts, short)).toEqual(first);
    expect(gen.lastStepWeights).toBe('fed');
    const reference = await fed.generate(params, [[1, 2, 3]], long);
    expect(longOut.map((g) => g.tokens)).toEqual(reference.map((g) => g.tokens));
    await Promise.all([gen.release(), fed.release()]);
  });

  it('runs concurrent generate calls one after another, each with its own weights', async () => {
    const gen = await Generator.create(config, {}, { weights: 'baked' });
    const other = initParams(config, 6, 0.3);
    const o = { maxNewTokens: 6, temperature: 0 };
    const alone = [await gen.generate(params, prompts, o), await gen.generate(other, prompts, o)];
    const together = await Promise.all([gen.generate(params, prompts, o), gen.generate(other, prompts, o), gen.generate(params, prompts, o)]);
    expect(together).toEqual([alone[0], alone[1], alone[0]]);
    // Forgetting the baked weights only costs a rebuild: the same weights give the same tokens.
    await gen.forgetWeights();
    expect(await gen.generate(params, prompts, o)).toEqual(alone[0]);
    await gen.release();
  });

  it('prefills a repeated prompt once (a GRPO group) and generates what separate prefills would', async () => {
    const growing = await Generator.create(config, {}, { kvCache: 'growing' });
    const resident = await Generator.create(config);
    // Rows 0, 2 and 3 share a prompt; row 1 is shorter, so the shared rows are padded too.
    const group = [prompts[0], prompts[1], prompts[0], prompts[0]];
    for (const o of [{ maxNewTokens: 9, temperature: 0 }, { maxNewTokens: 9, temperature: 1, topP: 0.9, seed: 12 }]) {
      const a = await growing.generate(params, group, o);
      const b = await resident.generate(params, group, o);
      expect(growing.lastPrefill).toEqual({ rows: 4, tokens: 4 * prompts[0].length, reused: 0, chunks: 1 });
      expect(resident.lastPrefill).toEqual({ rows: 2, tokens: 2 * prompts[0].length, reused: 0, chunks: 1 });
      expect(b.map((g) => g.tokens)).toEqual(a.map((g) => g.tokens));
      b.forEach((g, row) => g.logprobs.forEach((lp, j) => expect(lp).toBeCloseTo(a[row].logprobs[j], 4)));
    }
    // Sampled rows of one prompt still diverge: each draws from the shared random stream in turn.
    const sampled = await resident.generate(params, [prompts[2], prompts[2], prompts[2]], { maxNewTokens: 8, temperature: 1, seed: 3 });
    expect(new Set(sampled.map((g) => g.tokens.join(','))).size).toBeGreaterThan(1);
    await Promise.all([growing.release(), resident.release()]);
  });
});
