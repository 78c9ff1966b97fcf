// Generation with the key/value cache against the full-sequence forward, plus sampling behaviour.
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../../../native-models/presets';
import { rowBytes } from '../../../../native-models/runtime/chunks';
import { GenerateError, type Generation, Generator } from '../../../../native-models/runtime/generate';
import { argmax, logSoftmax, sampleToken, sampleWithLogprob, seededRandom, tokenLogprob } from '../../../../native-models/runtime/sampling';
import { paramSpecs, resolveConfig } from '../../../../native-models/transformer/config';
import { buildDecodeGraph, buildLogprobsGraph } from '../../../../native-models/transformer/graphs';
import { initParams } from '../../../../native-models/transformer/init';
import { compile, maxAbsDiff, ortTensor } from '../support';

// Larger init than training so the distribution is far from uniform and argmax ties do not occur.
const config = resolveConfig({ nKvHeads: 1, qkvBias: true, qkNorm: true }, PRESETS.nano);
const params = initParams(config, 11, 0.3);

describe('Generator (KV cache)', () => {
  it('matches the full-sequence forward at every step, with left-padded prompts of different lengths', async () => {
    const gen = await Generator.create(config);
    const prompts = [[5, 17, 99, 3, 42], [7, 8, 200]];
    const steps = 6;
    const outs = await gen.generate(params, prompts, { maxNewTokens: steps, temperature: 0 });
    expect(outs.map((o) => o.tokens.length)).toEqual([steps, steps]);

    // Full forward over the left-padded prompt + generated tokens, same mask and positions.
    const P0 = 5;
    const rows = prompts.map((p, b) => [...new Array(P0 - p.length).fill(0), ...p, ...outs[b].tokens]);
    const mask = prompts.map((p) => [...new Array(P0 - p.length).fill(0), ...new Array(p.length + steps).fill(1)]);
    const pos = mask.map((m) => m.map((_, t) => Math.max(0, m.slice(0, t + 1).reduce((a, b) => a + b, 0) - 1)));
    const T = P0 + steps - 1;
    const session = await compile(buildLogprobsGraph(config, { withLogits: true }));
    const feeds: Record<string, ReturnType<typeof ortTensor>> = {
      input_ids: ortTensor('int64', rows.flatMap((r) => r.slice(0, T)), [2, T]),
      targets: ortTensor('int64', rows.flatMap((r) => r.slice(1)), [2, T]),
      attention_mask: ortTensor('int64', mask.flatMap((r) => r.slice(0, T)), [2, T]),
      position_ids: ortTensor('int64', pos.flatMap((r) => r.slice(0, T)), [2, T]),
    };
    for (const s of paramSpecs(config)) feeds[s.name] = ortTensor('float32', params.get(s.name)!, s.shape);
    const res = await session.run(feeds);
    const logprobs = res.logprobs.data as Float32Array;
    const logits = res.logits.data as Float32Array;
    const V = config.vocabSize;
    for (let b = 0; b < 2; b++) {
      for (let j = 0; j < steps; j++) {
        const t = P0 - 1 + j; // position whose prediction produced generated token j
        expect(outs[b].logprobs[j], `row ${b} step ${j}`).toBeCloseTo(logprobs[b * T + t], 4);
        expect(outs[b].tokens[j]).toBe(argmax(logits.subarray((b * T + t) * V, (b * T + t + 1) * V)));
      }
    }
  });

  it('is reproducible from a seed, stops on stop ids and stop strings, and honours maxNewTokens', async () => {
    const gen = await Generator.create(config);
    const prompt = [[1, 2, 3]];
    const a = await gen.generate(params, prompt, { maxNewTokens: 8, temperature: 1, seed: 7 });
    const b = await gen.generate(params, prompt, { maxNewTokens: 8, temperature: 1, seed: 7 });
    expect(b).toEqual(a);
    expect(a[0].finishReason).toBe('length');
    const first = a[0].tokens[0];
    const stopped = await gen.generate(params, prompt, { maxNewTokens: 8, temperature: 1, seed: 7, stopTokenIds: [first] });
    expect(stopped[0]).toEqual({ tokens: [first], logprobs: [a[0].logprobs[0]], finishReason: 'stop' });
    const third = a[0].tokens[2];
    const byString = await gen.generate(params, prompt, {
      maxNewTokens: 8, temperature: 1, seed: 7, stopStrings: [`<${third}>`], decode: (ids) => ids.map((i) => `<${i}>`).join(''),
    });
    expect(byString[0].tokens).toEqual(a[0].tokens.slice(0, a[0].tokens.indexOf(third) + 1));
    expect(byString[0].finishReason).toBe('stop');
    const short = await gen.generate(params, prompt, { maxNewTokens: 2, temperature: 1, seed: 7 });
    expect(short[0].tokens).toEqual(a[0].tokens.slice(0, 2));
  });

  it('rejects bad requests with clear errors', async () => {
    const gen = await Generator.create(config);
    await expect(gen.generate(params, [], { maxNewTokens: 1 })).rejects.toThrow(GenerateError);
    await expect(gen.generate(params, [[1, 999]], { maxNewTokens: 1 })).rejects.toThrow(/prompt 0 token 1 is 999/);
    await expect(gen.generate(params, [[1]], { maxNewTokens: config.maxSeqLen })).rejects.toThrow(/exceeds maxSeqLen/);
    await expect(gen.generate(params, [[1]], { maxNewTokens: 2, topP: 0 })).rejects.toThrow(/topP/);
  });
});

describe('Generator in chunks (memory budget)', () => {
  // Ragged, with a repeated prompt; the longest first, as the policy orders a bucket.
  const prompts = [[5, 17, 99, 3, 42, 8, 1], [7, 8, 200], [7, 8, 200], [250, 4], [9]];
  const o = { maxNewTokens: 6, temperature: 0 };
  /** Chunks pad to their own longest prompt, so only float rounding may differ from one batch. */
  function expectSame(a: Generation[], b: Generation[]): void {
    expect(b.map((g) => g.tokens)).toEqual(a.map((g) => g.tokens));
    expect(b.map((g) => g.finishReason)).toEqual(a.map((g) => g.finishReason));
    b.forEach((g, row) => g.logprobs.forEach((lp, j) => expect(lp, `row ${row} token ${j}`).toBeCloseTo(a[row].logprobs[j], 4)));
  }

  it('generates the greedy tokens of one batch, whatever the budget and cache', async () => {
    const whole = await Generator.create(config);
    // Two rows of the longest prompt fit, or more of shorter ones.
    const budget = 2 * rowBytes(config, { P: 0, T: 7 }, o.maxNewTokens);
    const pairs = await Generator.create(config, {}, { chunkBytes: budget });
    const growing = await Generator.create(config, {}, { kvCache: 'growing', chunkBytes: 1 });
    const a = await whole.generate(params, prompts, o);
    expect(whole.lastPrefill).toEqual({ rows: 4, tokens: 4 * 7, reused: 0, chunks: 1 });
    expectSame(a, await pairs.generate(params, prompts, o));
    // [0, 1] padded to 7, then [2, 3, 4] to 3 (rows 1 and 2 repeat a prompt but are in different chunks).
    expect(pairs.lastPrefill).toEqual({ rows: 5, tokens: 2 * 7 + 3 * 3, reused: 0, chunks: 2 });
    expectSame(a, await growing.generate(params, prompts, o));
    expect(growing.lastPrefill!.chunks).toBe(5);
    await Promise.all([whole.release(), pairs.release(), growing.release()]);
  });

  it('samples reproducibly from a seed, one stream through the chunks in turn', async () => {
    const gen = await Generator.create(config, {}, { chunkBytes: 2 * rowBytes(config, { P: 0, T: 7 }, 6) });
    const s = { maxNewTokens: 6, temperature: 1, seed: 4 };
    const a = await gen.generate(params, prompts, s);
    expect(await gen.generate(params, prompts, s)).toEqual(a);
    // The first chunk draws first, as its rows would alone.
    expect(a.slice(0, 2)).toEqual(await gen.generate(params, prompts.slice(0, 2), s));
    await gen.release();
  });

  it('reuses earlier turns as one batch does: the same prefix lookups, tokens and stored sequences', async () => {
    const whole = await Generator.create(config);
    const single = await Generator.create(config, {}, { chunkBytes: 1 });
    const r = { ...o, reusePrefixes: true };
    let turn = prompts.slice(0, 4);
    for (let t = 0; t < 3; t++) {
      const a = await whole.generate(params, turn, r);
      expectSame(a, await single.generate(params, turn, r));
      expect(single.lastPrefill!.chunks).toBe(turn.length);
      expect(single.lastPrefill!.reused).toBe(whole.lastPrefill!.reused);
      if (t > 0) expect(single.lastPrefill!.reused).toBeGreaterThan(0);
      turn = turn.map((p, b) => [...p, ...a[b].tokens, 11 + b]);
    }
    await Promise.all([whole.release(), single.release()]);
  });
});

describe('sampleToken', () => {
  const logits = [0, 3, 1, 2.5];
  it('temperature 0 and top-k 1 are greedy', () => {
    expect(sampleToken(logits, { temperature: 0, topK: 0, topP: 1 }, seededRandom(1))).toBe(1);
    expect(sampleToken(logits, { temperature: 1, topK: 1, topP: 1 }, seededRandom(1))).toBe(1);
  });
  it('top-k and top-p restrict the support', () => {
    const draw = (p: { topK: number; topP: number }) => {
      const r = seededRandom(3);
      return new Set(Array.from({ length: 300 }, () => sampleToken(logits, { temperature: 1, ...p }, r)));
    };
    expect([...draw({ topK: 2, topP: 1 })].sort()).toEqual([1, 3]);
    // p(1) ≈ 0.55, p(3) ≈ 0.33: top-p 0.5 keeps only token 1; 0.8 keeps 1 and 3.
    expect([...draw({ topK: 0, topP: 0.5 })]).toEqual([1]);
    expect([...draw({ topK: 0, topP: 0.8 })].sort()).toEqual([1, 3]);
    expect([...draw({ topK: 0, topP: 1 })].sort()).toEqual([0, 1, 2, 3]);
  });
});

describe('sampling distributions', () => {
  // A known logit vector with a long tail, so truncation and temperature both change the support.
  const logits = Float32Array.from([2, 0.5, -1, 1.5, 0, -3, 1, -0.5, 0.25, -2]);
  const exact = (p: { temperature: number; topK: number; topP: number }) => {
    const w = Array.from(logits, (l) => Math.exp(l / p.temperature));
    const order = [...w.keys()].sort((a, b) => w[b] - w[a]);
    const total = w.reduce((a, b) => a + b, 0);
    let keep = p.topK > 0 ? p.topK : w.length;
    if (p.topP < 1) {
      let cum = 0;
      keep = Math.min(keep, order.findIndex((i) => (cum += w[i] / total) >= p.topP) + 1);
    }
    const kept = new Set(order.slice(0, keep));
    const z = [...kept].reduce((a, i) => a + w[i], 0);
    return w.map((v, i) => (kept.has(i) ? v / z : 0));
  };

  it.each([
    { temperature: 1, topK: 0, topP: 1 },
    { temperature: 0.7, topK: 0, topP: 1 },
    { temperature: 1.5, topK: 3, topP: 1 },
    { temperature: 1, topK: 0, topP: 0.8 },
    { temperature: 0.5, topK: 4, topP: 0.95 },
  ])('draws each token with its truncated, renormalised probability (%o)', (p) => {
    const n = 40_000;
    const counts = new Array(logits.length).fill(0);
    const r = seededRandom(17);
    for (let i = 0; i < n; i++) counts[i % 2 ? sampleWithLogprob(logits, p, r).token : sampleToken(logits, p, r)]++;
    exact(p).forEach((q, i) => {
      if (q === 0) expect(counts[i], `token ${i} is outside the support`).toBe(0);
      // Binomial standard error; 5σ keeps this deterministic seed far from a flaky edge.
      else expect(Math.abs(counts[i] / n - q), `token ${i}`).toBeLessThan(5 * Math.sqrt((q * (1 - q)) / n) + 1e-9);
    });
  });

  it('returns the log-probability of the token it drew under the distribution it drew from (tempered, truncated, renormalised)', () => {
    for (const p of [{ temperature: 1, topK: 0, topP: 1 }, { temperature: 0.7, topK: 0, topP: 1 }, { temperature: 1, topK: 0, topP: 0.6 }, { temperature: 0.3, topK: 2, topP: 1 }, { temperature: 1.5, topK: 4, topP: 0.9 }]) {
      const q = exact(p);
      const r = seededRandom(5);
      for (let i = 0; i < 50; i++) {
        const { token, logprob } = sampleWithLogprob(logits, p, r);
        expect(q[token], `token ${token} is in the support`).toBeGreaterThan(0);
        expect(logprob, `${JSON.stringify(p)} token ${token}`).toBeCloseTo(Math.log(q[token]), 10);
      }
    }
  });

  it('greedy picks (T = 0, top-k 1) record the model’s own T = 1 log-probability, not the point mass’s 0', () => {
    const lp = logSoftmax(logits);
    for (const p of [{ temperature: 0, topK: 0, topP: 1 }, { temperature: 0.8, topK: 1, topP: 1 }]) {
      const { token, logprob } = sampleWithLogprob(logits, p, seededRandom(1));
      expect(token).toBe(0);
      expect(logprob).toBeCloseTo(lp[0], 12);
      expect(tokenLogprob(logits, token)).toBeCloseTo(lp[0], 12);
    }
  });

  it('finds a top-p nucleus that reaches far below the best logit (the widening window)', () => {
    // Ten tokens at 0 hold 94 % of the mass; 4990 at -9 share the rest, so p = 0.99 takes thousands of them.
    const logits = Float32Array.from({ length: 5000 }, (_, i) => (i < 10 ? 0 : -9));
    const w = Array.from(logits, Math.exp);
    const total = w.reduce((a, b) => a + b, 0);
    let cum = 0;
    const last = w.findIndex((v) => (cum += v / total) >= 0.99); // ties keep id order
    const r = seededRandom(2);
    const seen = Array.from({ length: 4000 }, () => sampleToken(logits, { temperature: 1, topK: 0, topP: 0.99 }, r));
    expect(last).toBeGreaterThan(3000);
    expect(Math.max(...seen)).toBeLessThanOrEqual(last);
    expect(Math.max(...seen)).toBeGreaterThan(last - 500);
  });
});

describe('self-contained decode model (weights embedded)', () => {
  it('reproduces the logits of the weights-as-inputs graph in a fresh session, fed only ids, mask, positions and cache', async () => {
    const withInputs = await compile(buildDecodeGraph(config));
    const embedded = await compile(buildDecodeGraph(config, { embedWeights: params }));
    expect([...embedded.inputNames].sort()).toEqual(['attention_mask', 'input_ids', 'position_ids', ...Array.from({ length: config.nLayers }, (_, i) => [`past_key_values.${i}.key`, `past_key_values.${i}.value`]).flat()].sort());
    const [B, T] = [1, 4];
    const feeds: Record<string, ReturnType<typeof ortTensor>> = {
      input_ids: ortTensor('int64', [3, 1, 4, 1], [B, T]),
      attention_mask: ortTensor('int64', [1, 1, 1, 1], [B, T]),
      position_ids: ortTensor('int64', [0, 1, 2, 3], [B, T]),
    };
    for (let i = 0; i < config.nLayers; i++) for (const k of ['key', 'value']) feeds[`past_key_values.${i}.${k}`] = ortTensor('float32', [], [B, config.nKvHeads, 0, config.dModel / config.nHeads]);
    const weights = Object.fromEntries(paramSpecs(config).map((s) => [s.name, ortTensor('float32', params.get(s.name)!, s.shape)]));
    const a = await withInputs.run({ ...feeds, ...weights });
    const b = await embedded.run(feeds);
    // ORT may pre-pack constant weights for its GEMM kernels, so summation order can differ slightly.
    expect(maxAbsDiff(a.logits.data as Float32Array, b.logits.data as Float32Array)).toBeLessThan(1e-5);
    expect(() => buildDecodeGraph(config, { embedWeights: new Map() })).toThrow(/no value for parameter model\.embed_tokens\.weight/);
  });
});
