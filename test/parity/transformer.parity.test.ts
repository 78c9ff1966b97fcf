// Whole-model parity against an independent PyTorch autograd reference (test/parity/reference.py):
// logits, per-token log-probs/entropies, every loss term and every trainable parameter's gradient.
// Tensors are exchanged as safetensors files in a temporary directory.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HostTensor } from '../../native-models/io/dtype';
import { readSafetensors, writeSafetensors } from '../../native-models/io/safetensors';
import { PRESETS } from '../../native-models/presets';
import { type ModelConfig, paramSpecs, resolveConfig } from '../../native-models/transformer/config';
import { type ObjectiveConfig, buildTrainStepGraph } from '../../native-models/transformer/graphs';
import { compile, ortTensor, rng } from '../unit/native-models/support';

const PYTHON = '/usr/bin/python3';
const HAS_TORCH = spawnSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
const REFERENCE = join(import.meta.dirname, 'reference.py');

// float32 on both sides. Elementwise |ours − torch| ≤ ATOL + RTOL·|torch|, where ATOL is scaled by the
// largest magnitude in the tensor (gradients of different parameters differ by orders of magnitude).
const RTOL = 1e-4;
const ATOL_REL_TO_MAX = 1e-5;

const KNOBS = { clip_low: 0.2, clip_high: 0.28, dual_clip: 1.3, kl_beta: 0.05, sft_coef: 0.7, wm_coef: 0.5, cmae_rho: 0.2 };

const nano = PRESETS.nano;
const MODELS: Record<string, ModelConfig> = {
  nano,
  'gqa-1kv+qkv-bias+qk-norm+tied': resolveConfig({ nKvHeads: 1, qkvBias: true, qkNorm: true, tiedEmbeddings: true }, nano),
  'untied+lora': resolveConfig({ tiedEmbeddings: false, lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'down_proj'] } }, nano),
};
const OBJECTIVES: Record<string, ObjectiveConfig> = {
  'pg token-mean k3 + sft seq-mean + cmae': { pg: { aggregation: 'token-mean', kl: 'k3' }, sft: { aggregation: 'seq-mean-token-mean' }, worldModel: { kind: 'cmae' } },
  'pg seq-mean k1 + sft constant + wm ce': { pg: { aggregation: 'seq-mean-token-mean', kl: 'k1' }, sft: { aggregation: 'constant' }, worldModel: { kind: 'ce' } },
  'pg constant k2': { pg: { aggregation: 'constant', kl: 'k2' } },
  'pg token-mean T=0.7 k3 + cmae': { pg: { aggregation: 'token-mean', kl: 'k3', temperature: 0.7 }, worldModel: { kind: 'cmae' } },
};
const CASES: [string, string][] = [
  ['nano', 'pg token-mean k3 + sft seq-mean + cmae'],
  ['nano', 'pg seq-mean k1 + sft constant + wm ce'],
  ['nano', 'pg constant k2'],
  ['gqa-1kv+qkv-bias+qk-norm+tied', 'pg token-mean k3 + sft seq-mean + cmae'],
  ['untied+lora', 'pg seq-mean k1 + sft constant + wm ce'],
  ['nano', 'pg token-mean T=0.7 k3 + cmae'],
  ['untied+lora', 'pg token-mean T=0.7 k3 + cmae'],
];

const B = 3;
const T = 7;
// Row 0 full, row 1 right-padded by 2, row 2 left-padded by 3.
const ATTENTION = [[1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0, 0], [0, 0, 0, 1, 1, 1, 1]];
const POSITIONS = ATTENTION.map((row) => row.map((_, t) => Math.max(0, row.slice(0, t + 1).reduce((a, b) => a + b, 0) - 1)));

function f32(shape: number[], values: ArrayLike<number>): HostTensor {
  return { dtype: 'F32', shape, data: Float32Array.from(values) };
}
function i64(shape: number[], values: number[]): HostTensor {
  return { dtype: 'I64', shape, data: BigInt64Array.from(values.map(BigInt)) };
}

function makeInputs(c: ModelConfig, seed: number): Map<string, HostTensor> {
  const rand = rng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const m = new Map<string, HostTensor>();
  for (const s of paramSpecs(c)) {
    const n = s.shape.reduce((a, b) => a * b, 1);
    const isNorm = s.name.endsWith('norm.weight');
    const scale = s.name.endsWith('.bias') ? 0.05 : 0.08;
    m.set(s.name, f32([...s.shape], Array.from({ length: n }, () => (isNorm ? 1 + 0.1 * normal() : scale * normal()))));
  }
  const flat = (f: (b: number, t: number) => number) => Array.from({ length: B * T }, (_, i) => f(Math.floor(i / T), i % T));
  const attn = (b: number, t: number) => ATTENTION[b][t];
  const maskOf = (p: number) => flat((b, t) => (attn(b, t) && rand() < p ? 1 : 0));
  m.set('input_ids', i64([B, T], flat(() => Math.floor(rand() * c.vocabSize))));
  m.set('attention_mask', i64([B, T], flat(attn)));
  m.set('position_ids', i64([B, T], flat((b, t) => POSITIONS[b][t])));
  m.set('targets', i64([B, T], flat(() => Math.floor(rand() * c.vocabSize))));
  m.set('pg_mask', f32([B, T], maskOf(0.8)));
  m.set('advantages', f32([B, T], flat(() => 2 * rand() - 1)));
  m.set('old_logprobs', f32([B, T], flat(() => -Math.log(c.vocabSize) + (rand() - 0.5))));
  m.set('ref_logprobs', f32([B, T], flat(() => -Math.log(c.vocabSize) + 0.6 * (rand() - 0.5))));
  m.set('sft_mask', f32([B, T], maskOf(0.6)));
  m.set('wm_weight', f32([B, T], flat((b, t) => (attn(b, t) && t % 3 === 0 ? 0.25 : 0))));
  return m;
}

function norms(inputs: Map<string, HostTensor>, objective: ObjectiveConfig): Record<string, number> {
  const rows = (name: string) => {
    const d = inputs.get(name)!.data as Float32Array;
    return Array.from({ length: B }, (_, b) => Array.from(d.subarray(b * T, (b + 1) * T)));
  };
  const norm = (name: string, mode: string) => {
    const r = rows(name);
    if (mode === 'token-mean') return r.flat().reduce((a, b) => a + b, 0);
    if (mode === 'seq-mean-token-mean') return r.filter((row) => row.some((v) => v > 0)).length;
    return B * T; // constant normaliser
  };
  return {
    ...(objective.pg ? { pg_norm: norm('pg_mask', objective.pg.aggregation) } : {}),
    ...(objective.sft ? { sft_norm: norm('sft_mask', objective.sft.aggregation) } : {}),
  };
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const SKIPPED = HAS_TORCH ? '' : ' (SKIPPED: /usr/bin/python3 cannot import torch)';
if (!HAS_TORCH) console.warn(`transformer parity vs PyTorch autograd${SKIPPED}`);

describe.skipIf(!HAS_TORCH)(`transformer parity vs PyTorch autograd${SKIPPED}`, () => {
  it('matches logits, log-probs, entropies, each loss term and every parameter gradient', async () => {
    const root = mkdtempSync(join(tmpdir(), 'envace-parity-'));
    dirs.push(root);
    const prepared = CASES.map(([modelName, objName], k) => {
      const c = MODELS[modelName];
      const objective = OBJECTIVES[objName];
      const dir = join(root, `case${k}`);
      mkdirSync(dir);
      const inputs = makeInputs(c, 7 + k);
      const knobs = { ...KNOBS, ...norms(inputs, objective) };
      const trainable = paramSpecs(c).filter((s) => s.trainable).map((s) => s.name);
      writeSafetensors(join(dir, 'inputs.safetensors'), inputs);
      writeFileSync(join(dir, 'case.json'), JSON.stringify({ model: c, objective, knobs, trainable }));
      return { label: `${modelName} / ${objName}`, c, objective, dir, inputs, knobs, trainable };
    });
    const py = spawnSync(PYTHON, [REFERENCE, ...prepared.map((p) => p.dir)], { encoding: 'utf8' });
    expect(py.status, `reference.py failed:\n${py.stderr}`).toBe(0);

    for (const p of prepared) {
      const g = buildTrainStepGraph(p.c, p.objective, { withLogits: true });
      const session = await compile(g);
      const feeds = Object.fromEntries(
        g.inputs.map((t) => {
          if (t.name in p.knobs) return [t.name, ortTensor('float32', [p.knobs[t.name as keyof typeof p.knobs]], [])];
          const h = p.inputs.get(t.name);
          if (!h) throw new Error(`${p.label}: no test value for graph input ${t.name}`);
          return [t.name, ortTensor(t.dtype, Array.from(h.data as ArrayLike<number | bigint>, Number), h.shape)];
        }),
      );
      const ours = await session.run(feeds);
      const ref = readSafetensors(join(p.dir, 'outputs.safetensors')).tensors;
      const expected = ['logits', 'logprobs', 'entropy', 'loss', ...Object.keys(ours).filter((k) => k.startsWith('loss.')), ...p.trainable.map((n) => `grad.${n}`)];
      expect(p.trainable.length).toBeGreaterThan(0);
      for (const name of expected) {
        const r = ref.get(name);
        expect(r, `${p.label}: reference lacks ${name}`).toBeDefined();
        const a = ours[name].data as Float32Array;
        const b = r!.data as Float32Array;
        expect(a.length, `${p.label}: ${name} size`).toBe(b.length);
        const maxRef = b.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        expect(maxRef, `${p.label}: ${name} is all zeros in the reference (the check would be vacuous)`).toBeGreaterThan(0);
        let worst = 0;
        for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / (ATOL_REL_TO_MAX * maxRef + RTOL * Math.abs(b[i])));
        expect(worst, `${p.label}: ${name} differs from torch (worst error / tolerance = ${worst.toFixed(2)})`).toBeLessThanOrEqual(1);
      }
    }
  });
});

