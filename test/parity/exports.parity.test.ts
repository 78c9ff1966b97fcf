// Exports checked by loaders that are not us: an exported Hugging Face folder run by a PyTorch forward
// written from config.json alone (test/parity/exports_reference.py), and an exported ONNX model run in a
// fresh onnxruntime session through its KV-cache interface (prefill, then a decode step fed the presents).
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
  it('has the ORT KV-cache interface and reproduces our logits at prefill and at a decode step', async () => {
    const config = nanoConfig({ qkvBias: true });
    const weights = randomWeights(config, 12);
    const dir = join(tmp.make(), 'onnx');
    await exportModel({ config, weights, tokenizer: smallTokenizer(), format: 'onnx', outDir: dir });
    const session = await ort.InferenceSession.create(join(dir, 'model.onnx'));
    const L = config.nLayers;
    const kvNames = (prefix: string) => Array.from({ length: L }, (_, i) => [`${prefix}.${i}.key`, `${prefix}.${i}.value`]).flat();
    expect([...session.inputNames].sort()).toEqual(['attention_mask', 'input_ids', 'position_ids', ...kvNames('past_key_values')].sort());
    expect([...session.outputNames].sort()).toEqual(['logits', ...kvNames('present')].sort());

    const [B, V, KV, D] = [ROWS.length, config.vocabSize, config.nKvHeads, config.dModel / config.nHeads];
    const T = ROWS[0].length - 1; // prefill all but the last token, then decode it
    const i64 = (rows: number[][]) =>
      new ort.Tensor(
        'int64',
        BigInt64Array.from(rows.flat(), (v) => BigInt(v)),
        [rows.length, rows[0].length],
      );
    const emptyPast = Object.fromEntries(kvNames('past_key_values').map((n) => [n, new ort.Tensor('float32', new Float32Array(0), [B, KV, 0, D])]));
    const prefill = await session.run({
      input_ids: i64(ROWS.map((r) => r.slice(0, T))),
      attention_mask: i64(ROWS.map(() => new Array(T).fill(1))),
      position_ids: i64(ROWS.map(() => Array.from({ length: T }, (_, t) => t))),
      ...emptyPast,
    });
    expect(prefill['present.0.key'].dims).toEqual([B, KV, T, D]);
    const past = Object.fromEntries(kvNames('present').map((n) => [n.replace('present', 'past_key_values'), prefill[n]]));
    const step = await session.run({
      input_ids: i64(ROWS.map((r) => [r[T]])),
      attention_mask: i64(ROWS.map(() => new Array(T + 1).fill(1))),
      position_ids: i64(ROWS.map(() => [T])),
      ...past,
    });
    await session.release();

    // Our full-sequence forward: logits at positions T-1 (end of prefill) and T (the decode step).
    const full = await ourLogits(config, weights, ROWS);
    const at = (t: number) => Float32Array.from({ length: B * V }, (_, k) => full[(Math.floor(k / V) * ROWS[0].length + t) * V + (k % V)]);
    expect(prefill.logits.dims).toEqual([B, V]);
    expect(relativeError(prefill.logits.data as Float32Array, at(T - 1))).toBeLessThan(TOLERANCE);
    expect(relativeError(step.logits.data as Float32Array, at(T))).toBeLessThan(TOLERANCE);
    // The decode step depends on the cache: without it the logits differ.
    const noCache = await (
      await ort.InferenceSession.create(join(dir, 'model.onnx'))
    ).run({
      input_ids: i64(ROWS.map((r) => [r[T]])),
      attention_mask: i64(ROWS.map(() => [1])),
      position_ids: i64(ROWS.map(() => [T])),
      ...emptyPast,
    });
    expect(relativeError(noCache.logits.data as Float32Array, at(T))).toBeGreaterThan(1e-2);
  });
});
