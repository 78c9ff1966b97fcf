import { describe, expect, it } from 'vitest';
import { benchGenerate } from '../../../../native-models/bench/generate';

describe('generation benchmark', () => {
  it('reports tokens/s consistent with batch × new tokens over wall time (no timing assertions)', async () => {
    const rows = await benchGenerate({ presets: ['nano'], batches: [1, 3], promptLen: 5, newTokens: 4, threads: 1 });
    expect(rows.map((r) => r.batch)).toEqual([1, 3]);
    for (const r of rows) expect(r.tokensPerSec).toBeCloseTo((r.batch * 4) / (r.wallMs / 1000), 6);
  });
});
