import { describe, expect, it } from 'vitest';
import { benchGenerate, benchTurns } from '../../../../native-models/bench/generate';

describe('generation benchmark', () => {
  it('reports tokens/s consistent with batch × new tokens over wall time (no timing assertions)', async () => {
    const rows = await benchGenerate({ presets: ['nano'], batches: [1, 3], promptLen: 5, newTokens: 4, threads: 1 });
    expect(rows.map((r) => r.batch)).toEqual([1, 3]);
    for (const r of rows) expect(r.tokensPerSec).toBeCloseTo((r.batch * 4) / (r.wallMs / 1000), 6);
  });

  it('times a multi-turn conversation with and without reused keys and reports their ratio', async () => {
    const [r] = await benchTurns({ presets: ['nano'], rows: 2, turns: 2, promptLen: 16, newTokens: 4, observationTokens: 3, threads: 1, repeats: 1 });
    expect(r).toMatchObject({ preset: 'nano', rows: 2, turns: 2 });
    expect(r.fullMs).toBeGreaterThan(0);
    expect(r.speedup).toBeCloseTo(r.fullMs / r.reusedMs, 10);
  });
});
