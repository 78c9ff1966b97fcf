import { mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CHECKPOINT_VERSION,
  CheckpointError,
  loadCheckpoint,
  saveCheckpoint,
} from '../../../../native-models/io/checkpoint';
import type { HostTensor } from '../../../../native-models/io/dtype';
import type { TensorSpec } from '../../../../native-models/io/tensor-spec';
import { writeSafetensors } from '../../../../native-models/io/safetensors';

const root = mkdtempSync(join(tmpdir(), 'checkpoint-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let seed = 7;
function randomF32(shape: number[]): HostTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    data[i] = (seed / 2 ** 32 - 0.5) * 3;
  }
  return { dtype: 'F32', shape, data };
}

const spec: TensorSpec[] = [
  { name: 'model.embed_tokens.weight', shape: [16, 8], dtype: 'F32' },
  { name: 'model.layers.0.self_attn.q_proj.weight', shape: [8, 8], dtype: 'F32' },
  { name: 'model.norm.weight', shape: [8], dtype: 'F32' },
];

function tensorsFor(specs: TensorSpec[]): Map<string, HostTensor> {
  return new Map(specs.map((s) => [s.name, randomF32(s.shape)]));
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CheckpointError);
    return (e as CheckpointError).code;
  }
  throw new Error('expected a CheckpointError');
}

function saved(name: string): { dir: string; weights: Map<string, HostTensor>; m: Map<string, HostTensor>; v: Map<string, HostTensor> } {
  const dir = join(root, name);
  const weights = tensorsFor(spec);
  const m = tensorsFor(spec);
  const v = tensorsFor(spec);
  saveCheckpoint(dir, { weights, optimizer: { m, v }, trainerState: { step: 42, lr: 3e-4, rng: [1, 2, 3] } });
  return { dir, weights, m, v };
}

describe('checkpoint round trip', () => {
  it('restores weights, both moments and the trainer state bit-exactly', () => {
    const { dir, weights, m, v } = saved('roundtrip');
    expect(readdirSync(dir).sort()).toEqual(['optimizer.safetensors', 'trainer_state.json', 'weights.safetensors']);
    const ck = loadCheckpoint(dir, spec);
    expect(ck.trainerState).toEqual({ step: 42, lr: 3e-4, rng: [1, 2, 3] });
    expect(Date.parse(ck.savedAt)).not.toBeNaN();
    for (const [name, t] of weights) {
      expect(ck.weights.get(name)!.data).toEqual(t.data);
      expect(ck.optimizer!.m.get(name)!.data).toEqual(m.get(name)!.data);
      expect(ck.optimizer!.v.get(name)!.data).toEqual(v.get(name)!.data);
    }
    const state = JSON.parse(readFileSync(join(dir, 'trainer_state.json'), 'utf8'));
    expect(state).toMatchObject({ format: 'envace-checkpoint', version: CHECKPOINT_VERSION });
  });

  it('a checkpoint without optimizer state loads with none', () => {
    const dir = join(root, 'no-optim');
    saveCheckpoint(dir, { weights: tensorsFor(spec), trainerState: { step: 1 } });
    expect(loadCheckpoint(dir, spec).optimizer).toBeUndefined();
  });

  it('saving over an existing checkpoint replaces it as a whole', () => {
    const { dir } = saved('overwrite');
    saveCheckpoint(dir, { weights: tensorsFor(spec), trainerState: { step: 43 } });
    const ck = loadCheckpoint(dir, spec);
    expect(ck.trainerState).toEqual({ step: 43 });
    expect(ck.optimizer).toBeUndefined();
  });
});

describe('checkpoint validation', () => {
  it('names the tensor and both shapes when a shape differs', () => {
    const { dir } = saved('shape');
    const other = spec.map((s) => (s.name === 'model.norm.weight' ? { ...s, shape: [16] } : s));
    expect(codeOf(() => loadCheckpoint(dir, other))).toBe('SHAPE_MISMATCH');
    expect(() => loadCheckpoint(dir, other)).toThrow(/weights\.safetensors: tensor "model\.norm\.weight" has shape \[8\] but \[16\] is expected/);
  });

  it('reports missing and unexpected tensors by name', () => {
    const { dir } = saved('names');
    const extra = [...spec, { name: 'lm_head.weight', shape: [16, 8], dtype: 'F32' as const }];
    expect(codeOf(() => loadCheckpoint(dir, extra))).toBe('MISSING_TENSOR');
    expect(() => loadCheckpoint(dir, extra)).toThrow(/tensor "lm_head\.weight" \[16, 8\] is missing/);
    expect(codeOf(() => loadCheckpoint(dir, spec.slice(1)))).toBe('UNEXPECTED_TENSOR');
    expect(() => loadCheckpoint(dir, spec.slice(1))).toThrow(/tensor "model\.embed_tokens\.weight" is not expected/);
  });

  it('reports a dtype that differs from the model', () => {
    const { dir } = saved('dtype');
    const f16 = spec.map((s) => ({ ...s, dtype: 'F16' as const }));
    expect(codeOf(() => loadCheckpoint(dir, f16))).toBe('DTYPE_MISMATCH');
    expect(() => loadCheckpoint(dir, f16)).toThrow(/is F32 but F16 is expected/);
  });

  it('checks optimizer moments against the spec too', () => {
    const { dir } = saved('moments');
    writeSafetensors(join(dir, 'optimizer.safetensors'), { 'm.model.norm.weight': randomF32([8]) });
    expect(codeOf(() => loadCheckpoint(dir, spec))).toBe('MISSING_TENSOR');
    expect(() => loadCheckpoint(dir, spec)).toThrow(/moment m\): tensor "model\.embed_tokens\.weight" \[16, 8\] is missing/);
    writeSafetensors(join(dir, 'optimizer.safetensors'), { 'step.count': randomF32([1]) });
    expect(codeOf(() => loadCheckpoint(dir, spec))).toBe('UNEXPECTED_TENSOR');
  });

  it('refuses to save moments that do not pair up with the weights', () => {
    const weights = tensorsFor(spec);
    const m = tensorsFor(spec);
    const v = tensorsFor(spec.slice(0, 2));
    expect(codeOf(() => saveCheckpoint(join(root, 'bad-save'), { weights, optimizer: { m, v }, trainerState: {} }))).toBe('MISSING_TENSOR');
    expect(codeOf(() => saveCheckpoint(join(root, 'bad-state'), { weights, trainerState: { n: 1n } }))).toBe('BAD_STATE');
    expect(readdirSync(root).filter((n) => n.startsWith('bad-'))).toEqual([]);
  });

  it('a truncated weights file is a CORRUPT_FILE error naming the file', () => {
    const { dir } = saved('truncated');
    const path = join(dir, 'weights.safetensors');
    truncateSync(path, statSync(path).size - 10);
    expect(codeOf(() => loadCheckpoint(dir, spec))).toBe('CORRUPT_FILE');
    expect(() => loadCheckpoint(dir, spec)).toThrow(/weights\.safetensors: .*\[OFFSETS_(OUT_OF_RANGE|GAP)\]/);
  });

  it('missing folder, missing file, broken or future trainer state', () => {
    expect(codeOf(() => loadCheckpoint(join(root, 'nowhere'), spec))).toBe('MISSING_FILE');
    const { dir } = saved('state');
    writeFileSync(join(dir, 'trainer_state.json'), '{"format": "envace-checkpoint", "version": 99, "state": {}}');
    expect(codeOf(() => loadCheckpoint(dir, spec))).toBe('UNSUPPORTED_VERSION');
    writeFileSync(join(dir, 'trainer_state.json'), '{"step": 1}');
    expect(codeOf(() => loadCheckpoint(dir, spec))).toBe('BAD_STATE');
    writeFileSync(join(dir, 'trainer_state.json'), '{"format": ');
    expect(codeOf(() => loadCheckpoint(dir, spec))).toBe('BAD_STATE');
    rmSync(join(dir, 'trainer_state.json'));
    expect(codeOf(() => loadCheckpoint(dir, spec))).toBe('MISSING_FILE');
    const { dir: dir2 } = saved('no-weights');
    rmSync(join(dir2, 'weights.safetensors'));
    expect(() => loadCheckpoint(dir2, spec)).toThrow(/no-weights\/weights\.safetensors does not exist/);
  });
});
