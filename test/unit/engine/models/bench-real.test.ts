// The real-size benchmark runs end to end at a tiny shape and reports every figure beside its reference,
// or why the reference is missing. Speed itself is never asserted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCH_LORA, benchRealSize, type RealBenchResult } from '../../../../electron/engine/models/bench-real';
import { benchTokenizer } from '../../../../electron/engine/models/bench-llama';
import { exportModel } from '../../../../electron/engine/models/export';
import { importModel } from '../../../../electron/engine/models/registry';
import { PRESETS, countParams, initParams, resolveConfig } from '../../../../native-models';

// nano with a vocabulary our byte-level tokenizer (264 ids) fits in.
const config = resolveConfig({ vocabSize: 320 }, PRESETS.nano);
const small = {
  threads: [1],
  train: { batch: 1, seqLen: 8, steps: 2, warmupSteps: 1 },
  generate: { decodeBatches: [1, 3], promptTokens: 6, newTokens: 4, prefillTokens: 24, repeats: 2 },
};
const root = mkdtempSync(join(tmpdir(), 'envace-bench-real-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ops = (r: RealBenchResult) => r.rows.map((x) => `${x.op}:${x.batch}:${x.threads}`);

describe('benchRealSize', () => {
  it('measures the full and LoRA train steps against PyTorch and decode and prefill against llama.cpp, each median one of its runs', async () => {
    const r = await benchRealSize({ source: { config, label: 'nano320' }, ...small, threads: [1, 2] });
    expect(r).toMatchObject({ model: 'nano320', source: 'shape', params: countParams(config), ggufDtype: 'f16' });
    expect(ops(r)).toEqual(['train-full:1:1', 'train-lora:1:1', 'train-full:1:2', 'train-lora:1:2', 'decode:1:1', 'decode:3:1', 'prefill:1:1', 'decode:1:2', 'decode:3:2', 'prefill:1:2']);
    for (const row of r.rows) {
      expect(row.ours.runs).toHaveLength(2);
      expect(row.ours.runs).toContain(row.ours.tokensPerSec);
      expect(row.ours.runs.every((x) => Number.isFinite(x) && x > 0), JSON.stringify(row)).toBe(true);
      expect(row.reference).toBe(row.op.startsWith('train') ? 'pytorch' : 'llama.cpp');
      expect('tokensPerSec' in row.theirs, JSON.stringify(row.theirs)).toBe(true);
      if ('tokensPerSec' in row.theirs) expect(row.ratio).toBeCloseTo(row.ours.tokensPerSec / row.theirs.tokensPerSec, 10);
    }
    const prefill = r.rows.find((x) => x.op === 'prefill')!;
    expect(prefill).toMatchObject({ tokens: 24, newTokens: 2 });
    // The LoRA step trains adapters over the frozen base: more parameters, fewer FLOPs per token.
    const [full, lora] = r.train;
    expect(lora.params).toBeGreaterThan(full.params);
    expect(lora.flopsPerToken).toBeLessThan(full.flopsPerToken);
    expect(r.loadAverage.before).toHaveLength(3);
    expect(r.loadAverage.after).toHaveLength(3);
    expect(BENCH_LORA.targets).toHaveLength(7);
  });

  it('reports a missing PyTorch or llama.cpp as "reference unavailable" and still measures ours', async () => {
    const r = await benchRealSize({
      source: { config, label: 'nano320' },
      ...small,
      pythonPath: join(root, 'no-python'),
      loadLlama: () => Promise.reject(new Error("Cannot find package 'node-llama-cpp'")),
    });
    expect(r.rows).toHaveLength(5);
    for (const row of r.rows) {
      expect(row.ours.tokensPerSec).toBeGreaterThan(0);
      expect(row.ratio).toBeNull();
      expect('error' in row.theirs && row.theirs.error).toMatch(/^reference unavailable: /);
    }
    expect(r.rows.find((x) => x.op === 'decode')!.theirs).toEqual({ error: "reference unavailable: Cannot find package 'node-llama-cpp'" });
  });

  it('benchmarks an imported model by name, on its own weights and tokenizer, with the references off', async () => {
    const tokenizer = benchTokenizer(config);
    const c = resolveConfig({ vocabSize: tokenizer.vocabSize }, config);
    await exportModel({ config: c, weights: initParams(c, 3), tokenizer, format: 'hf', outDir: join(root, 'hf') });
    const modelsDir = join(root, 'models');
    await importModel({ hfDir: join(root, 'hf'), modelsDir, name: 'mini' });
    const r = await benchRealSize({ source: { model: 'mini', modelsDir }, ...small, torch: false, llama: false });
    expect(r).toMatchObject({ model: 'mini', source: 'imported', params: countParams(c) });
    expect(r.rows.map((x) => x.theirs)).toEqual(r.rows.map(() => ({ error: 'reference off' })));
    await expect(benchRealSize({ source: { model: 'absent', modelsDir }, ...small })).rejects.toThrow(/no model named "absent"/);
  });
});
