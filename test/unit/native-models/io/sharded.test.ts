import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SafetensorsError, readSafetensors, writeSafetensors } from '../../../../native-models/io/safetensors';
import { readHfWeights, readShardedSafetensors } from '../../../../native-models/io/sharded';

const root = mkdtempSync(join(tmpdir(), 'sharded-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const t = (values: number[], shape = [values.length]) => ({ dtype: 'F32' as const, shape, data: new Float32Array(values) });

function shardedFolder(name: string, weightMap: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeSafetensors(join(dir, 'model-00001-of-00002.safetensors'), { 'model.embed_tokens.weight': t([1, 2, 3, 4], [2, 2]), 'model.norm.weight': t([5, 6]) });
  writeSafetensors(join(dir, 'model-00002-of-00002.safetensors'), { 'lm_head.weight': t([7, 8, 9, 10], [2, 2]) });
  writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: { total_size: 40 }, weight_map: weightMap }));
  return dir;
}

const goodMap = {
  'model.embed_tokens.weight': 'model-00001-of-00002.safetensors',
  'model.norm.weight': 'model-00001-of-00002.safetensors',
  'lm_head.weight': 'model-00002-of-00002.safetensors',
};

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SafetensorsError);
    return (e as SafetensorsError).code;
  }
  throw new Error('expected a SafetensorsError');
}

describe('sharded checkpoints', () => {
  it('reads every tensor the index lists, across shards', () => {
    const { tensors } = readShardedSafetensors(shardedFolder('good', goodMap));
    expect([...tensors.keys()]).toEqual(['lm_head.weight', 'model.embed_tokens.weight', 'model.norm.weight']);
    expect(Array.from(tensors.get('lm_head.weight')!.data as Float32Array)).toEqual([7, 8, 9, 10]);
    expect(tensors.get('model.embed_tokens.weight')!.shape).toEqual([2, 2]);
  });

  it('a tensor listed in the wrong shard is reported as missing', () => {
    const dir = shardedFolder('wrong', { ...goodMap, 'lm_head.weight': 'model-00001-of-00002.safetensors' });
    expect(codeOf(() => readShardedSafetensors(dir))).toBe('MISSING_TENSOR');
    expect(() => readShardedSafetensors(dir)).toThrow(/model-00001-of-00002\.safetensors: no tensor named "lm_head\.weight"/);
  });

  it('shard names that would leave the folder are refused', () => {
    const dir = shardedFolder('escape', { ...goodMap, 'lm_head.weight': '../good/model-00002-of-00002.safetensors' });
    expect(codeOf(() => readShardedSafetensors(dir))).toBe('BAD_INDEX');
  });

  it('an index without weight_map, or not JSON, is a BAD_INDEX; a missing shard an IO error', () => {
    const dir = shardedFolder('broken', goodMap);
    writeFileSync(join(dir, 'model.safetensors.index.json'), '{"metadata": {}}');
    expect(codeOf(() => readShardedSafetensors(dir))).toBe('BAD_INDEX');
    writeFileSync(join(dir, 'model.safetensors.index.json'), '{"weight_map": ');
    expect(codeOf(() => readShardedSafetensors(dir))).toBe('BAD_INDEX');
    writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: { x: 'model-3.safetensors' } }));
    expect(codeOf(() => readShardedSafetensors(dir))).toBe('IO');
  });

  it('readHfWeights picks the single file or the index, and says when neither exists', () => {
    const single = join(root, 'single');
    mkdirSync(single);
    writeSafetensors(join(single, 'model.safetensors'), { 'lm_head.weight': t([1]) });
    expect([...readHfWeights(single).tensors.keys()]).toEqual(['lm_head.weight']);
    expect(readHfWeights(join(root, 'good')).tensors.size).toBe(3);
    const empty = join(root, 'empty');
    mkdirSync(empty);
    expect(codeOf(() => readHfWeights(empty))).toBe('IO');
  });
});

describe('interchange with an independent implementation', () => {
  // A reader/writer written in Python from the format description (8-byte length, JSON, raw bytes).
  const script = `
import sys, json, struct, numpy as np
mode, path = sys.argv[1], sys.argv[2]
if mode == 'write':
    arrays = {
        'b.f32': np.arange(6, dtype='<f4').reshape(2, 3) / 7,
        'a.i64': np.array([-3, 2**40], dtype='<i8'),
        'c.f16': np.array([0.5, -1.25, 3 * 2**-10], dtype='<f2'),
    }
    header, blobs, off = {'__metadata__': {'format': 'pt'}}, [], 0
    for name in ['c.f16', 'a.i64', 'b.f32']:  # deliberately not in name order
        a = arrays[name]
        b = a.tobytes()
        header[name] = {'dtype': {'float32': 'F32', 'int64': 'I64', 'float16': 'F16'}[str(a.dtype)], 'shape': list(a.shape), 'data_offsets': [off, off + len(b)]}
        blobs.append(b); off += len(b)
    h = json.dumps(header).encode()
    open(path, 'wb').write(struct.pack('<Q', len(h)) + h + b''.join(blobs))
else:
    raw = open(path, 'rb').read()
    n = struct.unpack('<Q', raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == '__metadata__': out[name] = e; continue
        b, end = e['data_offsets']
        dt = {'F32': '<f4', 'I64': '<i8', 'F16': '<f2'}[e['dtype']]
        out[name] = {'shape': e['shape'], 'values': np.frombuffer(raw[8 + n + b:8 + n + end], dtype=dt).astype(float).tolist()}
    print(json.dumps(out))
`;
  const py = (...args: string[]) => execFileSync('/usr/bin/python3', ['-c', script, ...args], { encoding: 'utf8' });

  it('reads a file written by the Python writer', () => {
    const path = join(root, 'from-python.safetensors');
    py('write', path);
    const { tensors, metadata } = readSafetensors(path, { halfToFloat32: true });
    expect(metadata).toEqual({ format: 'pt' });
    expect(tensors.get('b.f32')!.shape).toEqual([2, 3]);
    expect(Array.from(tensors.get('b.f32')!.data as Float32Array)).toEqual(Array.from(new Float32Array([0, 1, 2, 3, 4, 5].map((x) => x / 7))));
    expect(Array.from(tensors.get('a.i64')!.data as BigInt64Array)).toEqual([-3n, 2n ** 40n]);
    expect(Array.from(tensors.get('c.f16')!.data as Float32Array)).toEqual([0.5, -1.25, 3 * 2 ** -10]);
  });

  it('writes a file the Python reader understands', () => {
    const path = join(root, 'to-python.safetensors');
    writeSafetensors(path, { w: { dtype: 'F32', shape: [2, 2], data: new Float32Array([1.5, -2, 3.25, 0]) }, n: { dtype: 'I64', shape: [1], data: new BigInt64Array([9n]) } }, { k: 'v' });
    const parsed = JSON.parse(py('read', path));
    expect(parsed.__metadata__).toEqual({ k: 'v' });
    expect(parsed.w).toEqual({ shape: [2, 2], values: [1.5, -2, 3.25, 0] });
    expect(parsed.n).toEqual({ shape: [1], values: [9] });
  });
});
