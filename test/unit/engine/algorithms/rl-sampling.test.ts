// Pre-flight refuses sampling knobs an RL method's importance ratio cannot honour (top-p < 1,
// T = 0) and names the knob; SFT, which samples nothing to train on, is unaffected.
import { describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { preflight, rlSamplingProblem } from '../../../../electron/engine/runs/preflight';

const base = { env: 'mock', model: { preset: 'nano' as const } };

describe('pre-flight sampling check for RL methods', () => {
  it('refuses top-p < 1 for every RL method, naming rollout.topP', async () => {
    for (const algo of ['grpo-real', 'envace', 'paw', 'rwml', 'sft+envace', 'rwml+grpo-real'] as const) {
      expect(rlSamplingProblem(RunConfig.parse({ ...base, algo, rollout: { topP: 0.9 } })), algo).toMatch(/rollout\.topP/);
    }
    // A shape that fits nano's context, so that sampling is the one thing refused.
    const result = await preflight(RunConfig.parse({ ...base, algo: 'envace', rollout: { topP: 0.95, toolSchemas: 'none', maxObservationTokens: 24 } }));
    expect(result.ok).toBe(false);
    expect(result.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['sampling']);
  });

  it('refuses temperature 0 for RL, and accepts any T > 0 with top-p 1 (the trainer scores π_θ at T)', () => {
    expect(rlSamplingProblem(RunConfig.parse({ ...base, algo: 'grpo-real', rollout: { temperature: 0 } }))).toMatch(/rollout\.temperature/);
    for (const temperature of [0.3, 0.7, 1, 1.5]) expect(rlSamplingProblem(RunConfig.parse({ ...base, algo: 'envace', rollout: { temperature } }))).toBeUndefined();
  });

  it('leaves SFT alone: it trains on demonstrations, not on sampled tokens', async () => {
    const sft = RunConfig.parse({ ...base, algo: 'sft', rollout: { topP: 0.5, temperature: 0 } });
    expect(rlSamplingProblem(sft)).toBeUndefined();
    expect((await preflight(sft)).checks.some((c) => c.name === 'sampling')).toBe(false);
  });
});
