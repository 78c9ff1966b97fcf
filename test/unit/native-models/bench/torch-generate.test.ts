import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { benchGenerate } from '../../../../native-models/bench/generate';
import { compareGreedy, runTorchGenerate, topTwoMargins } from '../../../../native-models/bench/torch-generate';
import { PRESETS } from '../../../../native-models/presets';
import { Generator } from '../../../../native-models/runtime/generate';
import { initParams } from '../../../../native-models/transformer/init';

const hasTorch = spawnSync('/usr/bin/python3', ['-c', 'import torch'], { encoding: 'utf8' }).status === 0;

describe('greedy agreement', () => {
  it('finds the top-2 margin of every row', () => {
    const logits = Float32Array.from([0.1, 0.9, 0.5, /* row 2 */ 2, -1, 1.5]);
    const m = topTwoMargins(logits, 3);
    expect(m[0]).toBeCloseTo(0.4, 6);
    expect(m[1]).toBeCloseTo(0.5, 6);
  });

  it('fails on a clear disagreement, skips near ties and stops a row where a tie went the other way', () => {
    expect(compareGreedy([[1, 2, 3]], [[1, 2, 3]], [[1, 1, 1]])).toEqual({ agree: true, comparedSteps: 3, matchedSteps: 3 });
    expect(compareGreedy([[1, 2, 3]], [[1, 5, 3]], [[1, 1, 1]])).toEqual({ agree: false, comparedSteps: 2, matchedSteps: 1 });
    // Step 1 is a near tie resolved differently: the row stops there and still agrees.
    expect(compareGreedy([[1, 2, 3]], [[1, 5, 9]], [[1, 1e-6, 1]])).toEqual({ agree: true, comparedSteps: 1, matchedSteps: 1 });
    // A near tie resolved the same way is not counted, later steps still are.
    expect(compareGreedy([[1, 2, 3]], [[1, 2, 4]], [[1, 1e-6, 1]])).toEqual({ agree: false, comparedSteps: 2, matchedSteps: 1 });
  });
});

describe('generation timing hook', () => {
  it('reports every step with its logits, whose argmax is the greedy token', async () => {
    const c = PRESETS.nano;
    const gen = await Generator.create(c, { intraOpThreads: 1 });
    const steps: number[] = [];
    const argmaxes: number[][] = [];
    const out = await gen.generate(initParams(c, 0), [[1, 2, 3], [4, 5, 6]], {
      maxNewTokens: 3,
      temperature: 0,
      onStep: (step, logits) => {
        steps.push(step);
        expect(logits.length).toBe(2 * c.vocabSize);
        argmaxes.push([0, 1].map((b) => {
          const row = logits.subarray(b * c.vocabSize, (b + 1) * c.vocabSize);
          return row.indexOf(Math.max(...row));
        }));
      },
    });
    await gen.release();
    expect(steps).toEqual([0, 1, 2]);
    expect(out.map((g) => g.tokens)).toEqual([0, 1].map((b) => argmaxes.map((a) => a[b])));
  });
});

describe.skipIf(!hasTorch)(`PyTorch KV-cache decode reference${hasTorch ? '' : ' (skipped: /usr/bin/python3 cannot import torch)'}`, () => {
  it('runs on the identical model and prompts, times prefill and decode apart, and picks the same greedy tokens', async () => {
    const rows = await benchGenerate({ presets: ['nano'], batches: [1, 2], promptLen: 6, newTokens: 5, threads: 1, torch: true, agreeSteps: 5 });
    expect(rows.map((r) => r.batch)).toEqual([1, 2]);
    for (const r of rows) {
      expect(r.prefillTokensPerSec).toBeGreaterThan(0);
      expect(r.decodeTokensPerSec).toBeGreaterThan(0);
      expect(r.torch).toBeDefined();
      if (!r.torch || 'error' in r.torch) throw new Error(`torch reference failed: ${r.torch && 'error' in r.torch ? r.torch.error : 'absent'}`);
      expect(r.torch.prefillTokensPerSec).toBeGreaterThan(0);
      expect(r.ratioVsTorch).toBeCloseTo(r.decodeTokensPerSec! / r.torch.decodeTokensPerSec!, 9);
      expect(r.tokensAgree).toBe(true);
      // Random weights rarely tie within 1e-3, so most of the 5 steps per row are really compared.
      expect(r.agreement!.comparedSteps).toBeGreaterThanOrEqual(r.batch * 3);
      expect(r.agreement!.matchedSteps).toBe(r.agreement!.comparedSteps);
    }
  });

  it('returns the tokens of a full greedy decode equal to ours, step for step', async () => {
    const c = PRESETS.nano;
    const params = initParams(c, 3);
    const prompts = [[7, 8, 9, 10], [200, 100, 50, 25]];
    const gen = await Generator.create(c, { intraOpThreads: 1 });
    const margins: number[][] = [[], []];
    const ours = await gen.generate(params, prompts, { maxNewTokens: 6, temperature: 0, onStep: (_, l) => topTwoMargins(l, c.vocabSize).forEach((m, b) => margins[b].push(m)) });
    await gen.release();
    const ref = runTorchGenerate({ config: c, params, prompts, newTokens: 6, threads: 1 });
    if ('error' in ref) throw new Error(ref.error);
    expect(ref.tokens.map((r) => r.length)).toEqual([6, 6]);
    expect(compareGreedy(ours.map((g) => g.tokens), ref.tokens, margins).agree).toBe(true);
  });

  it('reports a clear error for prompts of different lengths instead of crashing', () => {
    const c = PRESETS.nano;
    const r = runTorchGenerate({ config: c, params: initParams(c, 0), prompts: [[1, 2], [3]], newTokens: 2, threads: 1 });
    expect(r).toEqual({ error: expect.stringContaining('one length') });
  });

  it('reports a missing parameter as an error', () => {
    const c = PRESETS.nano;
    const params = initParams(c, 0);
    params.delete('model.norm.weight');
    expect(runTorchGenerate({ config: c, params, prompts: [[1]], newTokens: 1, threads: 1 })).toEqual({ error: 'missing parameter model.norm.weight' });
  });
});
