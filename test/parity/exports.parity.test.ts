// Exports checked by loaders that are not us: an exported Hugging Face folder run by a PyTorch forward
// written from config.json alone (test/parity/exports_reference.py), and an exported ONNX model run in a
// fresh onnxruntime session through its KV-cache interface (prefill, then a decode step fed the presents):
// Optimum's convention, logits [B, T, V] for every position fed, prefill and step alike.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { type ModelConfig, readSafetensors } from '../../native-models';
import { exportModel } from '../../electron/engine/models/export';
import { nanoConfig, ourLogits, randomWeights, relativeError, smallTokenizer, tempDirs } from '../unit/engine/models/fixtures';

const PYTHON = '/usr/bin/python3';
const HAS_TORCH = spawnSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
const REFERENCE = join(import.meta.dirname, 'exports_reference.py');
const SKIPPED = HAS_TORCH ? '' : ' (SKIPPED: /usr/bin/python3 cannot import torch)';
if (!HAS_TORCH) console.warn(`HF export vs PyTorch${SKIPPED}`);

// float32 on both sides, different summation orders: max |ours − theirs| ≤ 1e-4 · max |theirs|.
const TOLERANCE = 1e-4;

const tmp = tempDirs();
afterAll(tmp.cleanup);

const VARIANTS: Record<string, ModelConfig> = {
  'Llama (nano: tied, GQA 4/2)': nanoConfig(),
  'Qwen2 (q/k/v bias, untied, 1 KV head)': nanoConfig({ qkvBias: true, tiedEmbeddings: false, nKvHeads: 1 }),
  'Qwen3 (q/k norm, head dim 32 ≠ dModel/nHeads, θ = 1e6)': nanoConfig({ qkNorm: true, headDim: 32, ropeTheta: 1e6 }),
  'Llama with LoRA merged on export': nanoConfig({ lora: { rank: 4, alpha: 8, targets: ['q_proj', 'k_proj', 'up_proj'] } }),
};

const ROWS = [
  [12, 250, 7, 99, 3, 180, 64, 301, 45, 8, 200, 17],
  [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
];

describe.skipIf(!HAS_TORCH)(`HF export loaded by a PyTorch reference forward${SKIPPED}`, () => {
  for (const [label, config] of Object.entries(VARIANTS)) {
    it(`reproduces our logits: ${label}`, async () => {
      const weights = randomWeights(config, 11);
      const dir = join(tmp.make(), 'hf');
      await exportModel({ config, weights, tokenizer: smallTokenizer(), format: 'hf', outDir: dir });
      const idsPath = join(dir, '..', 'ids.json');
      const outPath = join(dir, '..', 'logits.safetensors');
      writeFileSync(idsPath, JSON.stringify(ROWS));
      const py = spawnSync(PYTHON, [REFERENCE, dir, idsPath, outPath], { encoding: 'utf8' });
      expect(py.status, `exports_reference.py failed:\n${py.stderr}`).toBe(0);
      const theirs = readSafetensors(outPath).tensors.get('logits')!;
      expect(theirs.shape).toEqual([ROWS.length, ROWS[0].length, config.vocabSize]);
      const ours = await ourLogits(config, weights, ROWS);
      expect(relativeError(ours, theirs.data as Float32Array)).toBeLessThan(TOLERANCE);
    });
  }
});

describe('ONNX export in a fresh onnxruntime session', () => {
  it("has Optimum's KV-cache interface and reproduces our logits at every prefill position and at decode steps", async () => {
    const config = nanoConfig({ qkvBias: true });
    const weights = randomWeights(config, 12);
    const dir = join(tmp.make(), 'onnx');
    await exportModel({ config, weights, tokenizer: smallTokenizer(), format: 'onnx', outDir: dir });
    const modelPath = join(dir, 'onnx', 'model.onnx');
    const session = await ort.InferenceSession.create(modelPath);
    const L = config.nLayers;
    const kvNames = (prefix: string) => Array.from({ length: L }, (_, i) => [`${prefix}.${i}.key`, `${prefix}.${i}.value`]).flat();
    expect([...session.inputNames]).toEqual(['input_ids', 'attention_mask', 'position_ids', ...kvNames('past_key_values')]);
    expect([...session.outputNames]).toEqual(['logits', ...kvNames('present')]);

    const [B, V, KV, D] = [ROWS.length, config.vocabSize, config.nKvHeads, config.dModel / config.nHeads];
    const N = ROWS[0].length;
    const P = N - 3; // prefill P tokens, then one decode step of 1 token and one of 2
    const i64 = (rows: number[][]) =>
      new ort.Tensor(
        'int64',
        BigInt64Array.from(rows.flat(), (v) => BigInt(v)),
        [rows.length, rows[0].length],
      );
    const span = (from: number, to: number) => ROWS.map((r) => r.slice(from, to));
    const positions = (from: number, to: number) => ROWS.map(() => Array.from({ length: to - from }, (_, t) => from + t));
    const ones = (n: number) => ROWS.map(() => new Array<number>(n).fill(1));
    const emptyPast = Object.fromEntries(kvNames('past_key_values').map((n) => [n, new ort.Tensor('float32', new Float32Array(0), [B, KV, 0, D])]));
    const pastOf = (out: ort.InferenceSession.ReturnType) => Object.fromEntries(kvNames('present').map((n) => [n.replace('present', 'past_key_values'), out[n]]));
    const run = (from: number, to: number, past: Record<string, ort.Tensor>) =>
      session.run({ input_ids: i64(span(from, to)), attention_mask: i64(ones(to)), position_ids: i64(positions(from, to)), ...past });

    const prefill = await run(0, P, emptyPast);
    const step1 = await run(P, P + 1, pastOf(prefill));
    const step2 = await run(P + 1, N, pastOf(step1));
    await session.release();
    expect(prefill['present.0.key'].dims).toEqual([B, KV, P, D]);
    expect(step2['present.0.key'].dims).toEqual([B, KV, N, D]);

    // Our full-sequence forward, positions [from, to) of every row: what each run must return as [B, to − from, V].
    const full = await ourLogits(config, weights, ROWS);
    const at = (from: number, to: number) => Float32Array.from(ROWS.flatMap((_, b) => [...full.subarray((b * N + from) * V, (b * N + to) * V)]));
    expect(prefill.logits.dims).toEqual([B, P, V]);
    expect(step1.logits.dims).toEqual([B, 1, V]);
    expect(step2.logits.dims).toEqual([B, 2, V]);
    expect(relativeError(prefill.logits.data as Float32Array, at(0, P))).toBeLessThan(TOLERANCE);
    expect(relativeError(step1.logits.data as Float32Array, at(P, P + 1))).toBeLessThan(TOLERANCE);
    expect(relativeError(step2.logits.data as Float32Array, at(P + 1, N))).toBeLessThan(TOLERANCE);
    // The decode step depends on the cache: without it the logits differ.
    const fresh = await ort.InferenceSession.create(modelPath);
    const noCache = await fresh.run({ input_ids: i64(span(P, P + 1)), attention_mask: i64(ones(1)), position_ids: i64(positions(P, P + 1)), ...emptyPast });
    await fresh.release();
    expect(relativeError(noCache.logits.data as Float32Array, at(P, P + 1))).toBeGreaterThan(1e-2);
  });
});
