// Reusing the keys and values of earlier generations for prompts that extend them (the next turn
// of a rollout): the same tokens and log-probs as a generator that prefills everything.
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../../../native-models/presets';
import { type Generation, Generator } from '../../../../native-models/runtime/generate';
import { resolveConfig } from '../../../../native-models/transformer/config';
import { initParams } from '../../../../native-models/transformer/init';

const config = resolveConfig({ qkvBias: true }, PRESETS.nano);
const params = initParams(config, 8, 0.3);

/** Next-turn prompts: each row's prompt, everything it generated, then a few new tokens (an observation). */
const extend = (prompts: number[][], outs: Generation[], extra: number[]) => prompts.map((p, b) => [...p, ...outs[b].tokens, ...extra.map((t) => (t + b) % 250)]);

function expectSame(a: Generation[], b: Generation[]): void {
  expect(b.map((g) => g.tokens)).toEqual(a.map((g) => g.tokens));
  b.forEach((g, row) => g.logprobs.forEach((lp, j) => expect(lp, `row ${row} token ${j}`).toBeCloseTo(a[row].logprobs[j], 4)));
}

describe('prefix reuse across generate calls', () => {
  it('a three-turn conversation prefills only each turn’s new tokens and generates what full prefills do', async () => {
    const reusing = await Generator.create(config);
    const plain = await Generator.create(config, {}, { prefixCacheBytes: 0 });
    const o = { maxNewTokens: 7, temperature: 0 };
    let prompts = [[5, 17, 99, 3, 42], [7, 8, 200], [5, 17, 99, 3, 42]];
    let fed = 0; // tokens each row fed in the previous turn: its prompt and all it generated but the last
    for (let turn = 0; turn < 3; turn++) {
      const a = await plain.generate(params, prompts, { ...o, reusePrefixes: true });
      const b = await reusing.generate(params, prompts, { ...o, reusePrefixes: true });
      expectSame(a, b);
      expect(plain.lastPrefill!.reused).toBe(0);
      expect(reusing.lastPrefill!.reused).toBe(fed);
      fed = prompts.reduce((n, p, row) => n + p.length + a[row].tokens.length - 1, 0);
      prompts = extend(prompts, a, [11, 12, 13]);
    }
    await Promise.all([reusing.release(), plain.release()]);
  });

  it('reuses a shared beginning only up to where a new prompt departs from it, rows with and without in one batch', async () => {
    const gen = await Generator.create(config);
    const plain = await Generator.create(config, {}, { prefixCacheBytes: 0 });
    const o = { maxNewTokens: 5, temperature: 1, seed: 3 };
    const first = [[1, 2, 3, 4, 5, 6, 7, 8]];
    await gen.generate(params, first, { ...o, reusePrefixes: true });
    // Shares 5 tokens, then departs; and a row with nothing in common.
    const next = [[1, 2, 3, 4, 5, 60, 70], [200, 201, 202]];
    const b = await gen.generate(params, next, { ...o, reusePrefixes: true });
    expect(gen.lastPrefill!.reused).toBe(5);
    expectSame(await plain.generate(params, next, o), b);
    await Promise.all([gen.release(), plain.release()]);
  });

  it('reuses nothing across new weights, after forgetPrefixes, or for calls that do not ask', async () => {
    const gen = await Generator.create(config);
    const prompt = [[9, 8, 7, 6, 5, 4]];
    const o = { maxNewTokens: 4, temperature: 0, reusePrefixes: true };
    const out = await gen.generate(params, prompt, o);
    const longer = [[...prompt[0], ...out[0].tokens, 3]];
    await gen.generate(params, longer, { ...o, reusePrefixes: false });
    expect(gen.lastPrefill!.reused).toBe(0);
    await gen.generate(initParams(config, 9, 0.3), longer, o);
    expect(gen.lastPrefill!.reused).toBe(0);
    await gen.generate(params, prompt, o);
    await gen.forgetPrefixes();
    await gen.generate(params, longer, o);
    expect(gen.lastPrefill!.reused).toBe(0);
    await gen.generate(params, longer, o);
    expect(gen.lastPrefill!.reused).toBe(longer[0].length - 1);
    await gen.release();
  });

  it('prefills an opening that distinct prompts share once, then only what follows it in each', async () => {
    const gen = await Generator.create(config);
    const plain = await Generator.create(config, {}, { prefixCacheBytes: 0 });
    const opening = Array.from({ length: 40 }, (_, i) => (i * 17 + 3) % 250); // a system block, say
    const prompts = [[...opening, 1, 2, 3], [...opening, 9, 8], [...opening, 4, 4, 4, 4], [...opening, 1, 2, 3]];
    const o = { maxNewTokens: 6, temperature: 1, seed: 5 };
    const b = await gen.generate(params, prompts, { ...o, reusePrefixes: true });
    // Three distinct prompts (the last repeats the first), each starting from the shared 40 tokens.
    expect(gen.lastPrefill).toMatchObject({ rows: 3, reused: 3 * 40 });
    expectSame(await plain.generate(params, prompts, o), b);
    // A short common opening is not worth a run of its own.
    await gen.forgetPrefixes();
    await gen.generate(params, [[...opening.slice(0, 10), 5], [...opening.slice(0, 10), 6]], { ...o, reusePrefixes: true });
    expect(gen.lastPrefill!.reused).toBe(0);
    await Promise.all([gen.release(), plain.release()]);
  });
});
