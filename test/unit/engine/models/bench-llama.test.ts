// The benchmark runs end to end and reports well-formed figures (speed itself is never asserted).
import { describe, expect, it } from 'vitest';
import { benchLlamaCpp } from '../../../../electron/engine/models/bench-llama';

describe('benchLlamaCpp', () => {
  it('measures both runtimes on the same exported model and reports medians of each repeat', async () => {
    const r = await benchLlamaCpp({ preset: 'nano', promptTokens: 8, newTokens: 8, repeats: 3, ggufDtype: 'f16' });
    expect(r).toMatchObject({ preset: 'nano', ggufDtype: 'f16', threads: 1, promptTokens: 8, newTokens: 8 });
    expect(r.params).toBeGreaterThan(100_000);
    for (const side of [r.ours, r.llamaCpp]) {
      expect(side.runs).toHaveLength(3);
      expect(side.runs.every((x) => Number.isFinite(x) && x > 0), JSON.stringify(r)).toBe(true);
      expect(side.runs).toContain(side.tokensPerSec);
    }
    expect(r.ratio).toBeCloseTo(r.ours.tokensPerSec / r.llamaCpp.tokensPerSec, 10);
  });

  it('refuses lengths that do not fit the preset or leave nothing to time', async () => {
    await expect(benchLlamaCpp({ preset: 'nano', promptTokens: 200, newTokens: 100 })).rejects.toThrow(/exceeds the preset's maxSeqLen 256/);
    await expect(benchLlamaCpp({ preset: 'nano', newTokens: 1 })).rejects.toThrow(/newTokens must be at least 2/);
  });
});
