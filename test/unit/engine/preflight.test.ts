import { describe, expect, it } from 'vitest';
import { countParams, preset } from '../../../native-models';
import { preflight, trainingMemoryEstimate } from '../../../electron/engine/runs/preflight';
import { RunConfig } from '../../../electron/contract';
import { patience } from '../../helpers/patience';

describe('trainingMemoryEstimate', () => {
  it('counts weights, gradients and both AdamW moments, plus one micro-batch of activations', () => {
    const c = preset('nano'); // C 64, F 176, H 4, L 2, V 256, T 256
    const tokens = 512;
    const state = countParams(c) * 16;
    const perLayer = tokens * (12 * 64 + 3 * 176 + 2 * 4 * 256);
    const activations = (2 * perLayer + 2 * tokens * 256) * 4;
    expect(trainingMemoryEstimate(c, tokens)).toBe(state + activations);
  });

  it('a micro-batch shorter than the context attends over its own length only', () => {
    const c = preset('nano');
    const short = trainingMemoryEstimate(c, 64) - countParams(c) * 16;
    expect(short).toBe((2 * 64 * (12 * 64 + 3 * 176 + 2 * 4 * 64) + 2 * 64 * 256) * 4);
  });
});

describe('preflight', () => {
  it('refuses RWML with embedding similarity (no embedder to run) and passes it with a text similarity', async () => {
    // Short prompts: with tool schemas and 256-token observations two mock prompts overflow nano's context.
    const base = { env: 'mock', model: { preset: 'nano' as const }, algo: 'rwml' as const, rollout: { toolSchemas: 'none' as const, maxObservationTokens: 48 } };
    const embedding = await preflight(RunConfig.parse({ ...base, rwml: { similarity: 'embedding' } }));
    expect(embedding.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['rwml']);
    expect((await preflight(RunConfig.parse(base))).ok).toBe(true);
  }, patience(30_000));

  it('cautions on the mock env on nano with the default knobs: two of its task prompts overflow the context', async () => {
    const r = await preflight(RunConfig.parse({ env: 'mock', model: { preset: 'nano' }, algo: 'rwml' }));
    // A minority of tasks cut short is a caution (those rollouts stop at once), not a refusal.
    expect(r.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual([]);
    expect(r.checks.find((c) => c.name === 'context')).toMatchObject({ ok: true, warning: true, detail: expect.stringMatching(/^2 of \d+ task prompts do not fit/) });
  });
});
