import { mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HostTensor } from '../../../../native-models/io/dtype';
import {
  MAX_HEADER_BYTES,
  SafetensorsError,
  decodeSafetensors,
  encodeSafetensors,
  readSafetensors,
  writeSafetensors,
} from '../../../../native-models/io/safetensors';

const dir = mkdtempSync(join(tmpdir(), 'safetensors-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function randomBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

/** One tensor of each dtype filled with random bit patterns (NaNs included), to prove bytes survive untouched. */
function sampleTensors(): Record<string, HostTensor> {
  const bytes = (n: number, seed: number) => randomBytes(n, seed).buffer as ArrayBuffer;
  return {
    'model.embed_tokens.weight': { dtype: 'F32', shape: [5, 3], data: new Float32Array(bytes(60, 1)) },
    'a.f64': { dtype: 'F64', shape: [2, 2], data: new Float64Array(bytes(32, 2)) },
    'a.f16': { dtype: 'F16', shape: [3], data: new Uint16Array(bytes(6, 3)) },
    'a.bf16': { dtype: 'BF16', shape: [1, 3], data: new Uint16Array(bytes(6, 4)) },
    'a.i64': { dtype: 'I64', shape: [3], data: new BigInt64Array([-1n, 2n ** 62n, 7n]) },
    'a.i32': { dtype: 'I32', shape: [], data: new Int32Array([-5]) },
    'a.u8': { dtype: 'U8', shape: [0, 4], data: new Uint8Array(0) },
    'a.bool': { dtype: 'BOOL', shape: [2], data: new Uint8Array([1, 0]) },
  };
}

function headerOf(bytes: Uint8Array): { length: number; json: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] } & Record<string, unknown>> } {
  const length = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return { length, json: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length))) };
}

/** Build a file from a header object and a data section, as a hostile producer might. */
function craft(header: unknown, data: Uint8Array = new Uint8Array(0)): Uint8Array {
  const text = new TextEncoder().encode(typeof header === 'string' ? header : JSON.stringify(header));
  const out = new Uint8Array(8 + text.byteLength + data.byteLength);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.byteLength), true);
  out.set(text, 8);
  out.set(data, 8 + text.byteLength);
  return out;
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SafetensorsError);
    return (e as SafetensorsError).code;
  }
  throw new Error('expected a SafetensorsError');
}

describe('encode / decode', () => {
  it('round-trips every dtype bit-exactly, with metadata', () => {
    const input = sampleTensors();
    const bytes = encodeSafetensors(input, { format: 'pt', run: 'r1' });
    const { tensors, metadata } = decodeSafetensors(bytes);
    expect(metadata).toEqual({ format: 'pt', run: 'r1' });
    expect([...tensors.keys()]).toEqual(Object.keys(input).sort());
    for (const [name, t] of Object.entries(input)) {
      const got = tensors.get(name)!;
      expect(got.dtype).toBe(t.dtype);
      expect(got.shape).toEqual(t.shape);
      expect(got.data.constructor).toBe(t.data.constructor);
      expect(new Uint8Array(got.data.buffer, got.data.byteOffset, got.data.byteLength)).toEqual(
        new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength),
      );
    }
  });

  it('writes a space-padded header of a multiple of 8 bytes with contiguous sorted offsets', () => {
    const bytes = encodeSafetensors(sampleTensors(), { a: 'b' });
    const { length, json } = headerOf(bytes);
    expect(length % 8).toBe(0);
    expect(json.__metadata__).toEqual({ a: 'b' });
    const names = Object.keys(json).filter((k) => k !== '__metadata__');
    expect(names).toEqual([...names].sort());
    let cursor = 0;
    for (const n of names) {
      expect(json[n].data_offsets[0]).toBe(cursor);
      cursor = json[n].data_offsets[1];
    }
    expect(8 + length + cursor).toBe(bytes.byteLength);
  });

  it('decoded tensors do not alias the input bytes', () => {
    const bytes = encodeSafetensors({ x: { dtype: 'F32', shape: [2], data: new Float32Array([1, 2]) } });
    const t = decodeSafetensors(bytes).tensors.get('x')!;
    bytes.fill(0);
    expect(Array.from(t.data as Float32Array)).toEqual([1, 2]);
  });

  it('converts F16 and BF16 to float32 on request, and rounds float32 input when writing them', () => {
    const values = new Float32Array([1, -2.5, 0.333251953125, 65504]);
    const bytes = encodeSafetensors({
      h: { dtype: 'F16', shape: [4], data: values },
      b: { dtype: 'BF16', shape: [2, 2], data: values },
    });
    const raw = decodeSafetensors(bytes).tensors;
    expect(raw.get('h')!.dtype).toBe('F16');
    expect(raw.get('h')!.data).toBeInstanceOf(Uint16Array);
    const up = decodeSafetensors(bytes, { halfToFloat32: true }).tensors;
    expect(up.get('h')!.dtype).toBe('F32');
    expect(Array.from(up.get('h')!.data as Float32Array)).toEqual(Array.from(values));
    // bf16 keeps 8 significand bits: 0.33325… and 65504 round to the nearest representable values
    expect(Array.from(up.get('b')!.data as Float32Array)).toEqual([1, -2.5, 0.333984375, 65536]);
    expect(up.get('b')!.shape).toEqual([2, 2]);
  });

  it('refuses tensors whose data does not match dtype or shape', () => {
    expect(codeOf(() => encodeSafetensors({ x: { dtype: 'F32', shape: [3], data: new Float32Array(2) } }))).toBe('SIZE_MISMATCH');
    expect(codeOf(() => encodeSafetensors({ x: { dtype: 'I32', shape: [2], data: new Float32Array(2) } }))).toBe('BAD_TENSOR');
    expect(codeOf(() => encodeSafetensors({ x: { dtype: 'Q4' as never, shape: [2], data: new Float32Array(2) } }))).toBe('UNKNOWN_DTYPE');
    expect(codeOf(() => encodeSafetensors({ x: { dtype: 'F32', shape: [-1], data: new Float32Array(2) } }))).toBe('BAD_SHAPE');
  });
});

describe('hostile files', () => {
  const f32 = (n: number) => new Uint8Array(n * 4);

  it('file shorter than the length prefix', () => {
    expect(codeOf(() => decodeSafetensors(new Uint8Array(5)))).toBe('FILE_TOO_SHORT');
  });

  it('header length beyond the file', () => {
    const bytes = craft({});
    new DataView(bytes.buffer).setBigUint64(0, 1000n, true);
    expect(codeOf(() => decodeSafetensors(bytes))).toBe('HEADER_LENGTH_OUT_OF_RANGE');
    new DataView(bytes.buffer).setBigUint64(0, 2n ** 63n, true);
    expect(codeOf(() => decodeSafetensors(bytes))).toBe('HEADER_LENGTH_OUT_OF_RANGE');
  });

  it('header above the size cap, even when the file is that long', () => {
    // A sparse file on disk: 8 + cap + 8 bytes, of which only the prefix is written.
    const path = join(dir, 'huge-header.safetensors');
    const prefix = new Uint8Array(8);
    new DataView(prefix.buffer).setBigUint64(0, BigInt(MAX_HEADER_BYTES + 8), true);
    writeFileSync(path, prefix);
    truncateSync(path, 8 + MAX_HEADER_BYTES + 8);
    expect(codeOf(() => readSafetensors(path))).toBe('HEADER_TOO_LARGE');
  });

  it('header that is not JSON, not UTF-8, or not an object', () => {
    expect(codeOf(() => decodeSafetensors(craft('{"x": ')))).toBe('HEADER_NOT_JSON');
    const badUtf8 = craft('{}');
    badUtf8[9] = 0xff;
    badUtf8[8] = 0xc3;
    expect(codeOf(() => decodeSafetensors(badUtf8))).toBe('HEADER_NOT_JSON');
    expect(codeOf(() => decodeSafetensors(craft('[1,2]')))).toBe('HEADER_INVALID');
    expect(codeOf(() => decodeSafetensors(craft({ __metadata__: { a: 1 } })))).toBe('HEADER_INVALID');
    expect(codeOf(() => decodeSafetensors(craft({ x: { dtype: 'F32', shape: [1], data_offsets: [0] } }, f32(1))))).toBe(
      'HEADER_INVALID',
    );
  });

  it('unknown dtype and invalid shapes', () => {
    expect(codeOf(() => decodeSafetensors(craft({ x: { dtype: 'F12', shape: [1], data_offsets: [0, 4] } }, f32(1))))).toBe(
      'UNKNOWN_DTYPE',
    );
    expect(codeOf(() => decodeSafetensors(craft({ x: { dtype: 'F32', shape: [1.5], data_offsets: [0, 4] } }, f32(1))))).toBe(
      'BAD_SHAPE',
    );
    expect(codeOf(() => decodeSafetensors(craft({ x: { dtype: 'F32', shape: '4', data_offsets: [0, 4] } }, f32(1))))).toBe(
      'BAD_SHAPE',
    );
  });

  it('offsets out of range, reversed, overlapping, or leaving holes', () => {
    const t = (b: number, e: number, shape = [1]) => ({ dtype: 'F32', shape, data_offsets: [b, e] });
    expect(codeOf(() => decodeSafetensors(craft({ x: t(0, 8, [2]) }, f32(1))))).toBe('OFFSETS_OUT_OF_RANGE');
    expect(codeOf(() => decodeSafetensors(craft({ x: t(4, 0) }, f32(1))))).toBe('OFFSETS_OUT_OF_RANGE');
    expect(codeOf(() => decodeSafetensors(craft({ x: t(0, 8, [2]), y: t(4, 8) }, f32(2))))).toBe('OFFSETS_OVERLAP');
    expect(codeOf(() => decodeSafetensors(craft({ x: t(0, 4), y: t(8, 12) }, f32(3))))).toBe('OFFSETS_GAP');
    expect(codeOf(() => decodeSafetensors(craft({ x: t(0, 4) }, f32(2))))).toBe('OFFSETS_GAP');
    expect(codeOf(() => decodeSafetensors(craft({ x: t(4, 8) }, f32(2))))).toBe('OFFSETS_GAP');
  });

  it('byte range that disagrees with shape x dtype', () => {
    expect(codeOf(() => decodeSafetensors(craft({ x: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, f32(2))))).toBe(
      'SIZE_MISMATCH',
    );
    expect(codeOf(() => decodeSafetensors(craft({ x: { dtype: 'F16', shape: [2, 2], data_offsets: [0, 16] } }, f32(4))))).toBe(
      'SIZE_MISMATCH',
    );
  });

  it('a truncated file is refused rather than read short', () => {
    const bytes = encodeSafetensors(sampleTensors());
    expect(codeOf(() => decodeSafetensors(bytes.subarray(0, bytes.byteLength - 3)))).toMatch(/OFFSETS_OUT_OF_RANGE|OFFSETS_GAP/);
    const path = join(dir, 'truncated.safetensors');
    writeFileSync(path, bytes.subarray(0, 20));
    expect(codeOf(() => readSafetensors(path))).toBe('HEADER_LENGTH_OUT_OF_RANGE');
  });

  it('error messages name the file and the tensor', () => {
    const path = join(dir, 'bad-size.safetensors');
    writeFileSync(path, craft({ 'model.norm.weight': { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, f32(2)));
    expect(() => readSafetensors(path)).toThrow(/bad-size\.safetensors: tensor "model\.norm\.weight" F32\[3\] needs 12 bytes but its offsets span 8/);
  });
});

describe('files on disk', () => {
  it('writes atomically and reads back by path, whole or a selection', () => {
    const path = join(dir, 'weights.safetensors');
    const input = sampleTensors();
    writeSafetensors(path, new Map(Object.entries(input)), { step: '3' });
    expect(readdirSync(dir).filter((f) => f.startsWith('weights.safetensors.tmp'))).toEqual([]);
    expect(readFileSync(path)).toEqual(Buffer.from(encodeSafetensors(input, { step: '3' })));
    const all = readSafetensors(path);
    expect(all.metadata).toEqual({ step: '3' });
    expect(all.tensors.get('a.i64')!.data).toEqual(input['a.i64'].data);
    const some = readSafetensors(path, { only: ['a.f64', 'a.bool'] });
    expect([...some.tensors.keys()]).toEqual(['a.f64', 'a.bool']);
    expect(some.tensors.get('a.f64')!.data).toEqual(input['a.f64'].data);
    expect(codeOf(() => readSafetensors(path, { only: ['nope'] }))).toBe('MISSING_TENSOR');
  });

  it('a failed write leaves an existing file untouched and no temp file', () => {
    const path = join(dir, 'keep.safetensors');
    writeSafetensors(path, { x: { dtype: 'F32', shape: [1], data: new Float32Array([7]) } });
    expect(codeOf(() => writeSafetensors(path, { x: { dtype: 'F32', shape: [2], data: new Float32Array([1]) } }))).toBe(
      'SIZE_MISMATCH',
    );
    expect(Array.from(readSafetensors(path).tensors.get('x')!.data as Float32Array)).toEqual([7]);
    expect(readdirSync(dir).filter((f) => f.startsWith('keep.safetensors.tmp'))).toEqual([]);
  });

  it('a missing file is an IO error naming the path', () => {
    const path = join(dir, 'absent.safetensors');
    expect(codeOf(() => readSafetensors(path))).toBe('IO');
    expect(() => readSafetensors(path)).toThrow(/absent\.safetensors: cannot open \(ENOENT\)/);
  });
});
