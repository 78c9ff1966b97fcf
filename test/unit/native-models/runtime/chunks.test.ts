// The chunking rule of generation: consecutive rows share a chunk while its estimated bytes fit the
// budget (the Generator's results in chunks are tested in generate.test.ts).
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../../../native-models/presets';
import { chunks, defaultChunkBytes, rowBytes } from '../../../../native-models/runtime/chunks';
import { BENCH_SHAPES } from '../../../../native-models/bench/shapes';

const config = PRESETS.nano;

describe('chunks', () => {
  it('cuts consecutive rows into chunks whose cost fits the budget, at least a row each', () => {
    expect(chunks(5, (rows) => 10 * rows.length, 25)).toEqual([[0, 1], [2, 3], [4]]);
    expect(chunks(3, (rows) => 10 * rows.length, 5)).toEqual([[0], [1], [2]]);
    // A padded chunk costs its longest row for every row: short rows share a chunk more widely.
    const lengths = [7, 3, 3, 2, 1];
    expect(chunks(5, (rows) => rows.length * Math.max(...rows.map((b) => lengths[b])), 10)).toEqual([[0], [1, 2, 3], [4]]);
  });

  it("costs a row by its cache, its prefill's past and presents, and the prefill's attention", () => {
    expect(rowBytes(config, { P: 4, T: 7 }, 6)).toBeGreaterThan(rowBytes(config, { P: 0, T: 7 }, 6));
    expect(rowBytes(config, { P: 0, T: 7 }, 16)).toBeGreaterThan(rowBytes(config, { P: 0, T: 7 }, 6));
  });

  it("budgets the weights' bytes, at least 1 GiB: tiny's rollout batches stay whole, SmolLM2's late retail turns do not", () => {
    expect(defaultChunkBytes(PRESETS.tiny)).toBe(2 ** 30);
    expect(defaultChunkBytes({ ...BENCH_SHAPES.smollm2, nLayers: 300 })).toBeGreaterThan(2 ** 30);
    expect(16 * rowBytes(PRESETS.tiny, { P: 544, T: 480 }, 96)).toBeLessThan(defaultChunkBytes(PRESETS.tiny));
    // A turn of 20 held-out retail tasks as measured (README): 4 GiB in one batch.
    expect(20 * rowBytes(BENCH_SHAPES.smollm2, { P: 636, T: 402 }, 96)).toBeGreaterThan(3 * defaultChunkBytes(BENCH_SHAPES.smollm2));
  });
});
