import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GgufError, type GgufValue, decodeGguf, encodeGguf, gguf, writeGguf } from '../../../../native-models/io/gguf';

const root = mkdtempSync(join(tmpdir(), 'gguf-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The bytes of a one-tensor file, assembled field by field from the GGUF v3 specification. */
function specBytes(): Uint8Array {
  const out: number[] = [];
  const u32 = (v: number) => out.push(v & 255, (v >>> 8) & 255, (v >>> 16) & 255, v >>> 24);
  const u64 = (v: number) => (u32(v), u32(0));
  const str = (s: string) => (u64(s.length), out.push(...Buffer.from(s, 'ascii')));
  out.push(...Buffer.from('GGUF', 'ascii'));
  u32(3);
  u64(1); // tensors
  u64(1); // metadata entries
  str('general.architecture');
  u32(8); // string
  str('llama');
  str('w');
  u32(2); // n dims
  u64(3); // innermost dim first
  u64(2);
  u32(0); // F32
  u64(0); // offset
  while (out.length % 32 !== 0) out.push(0);
  out.push(...new Uint8Array(new Float32Array([1, 2, 3, 4, 5, 6]).buffer));
  while (out.length % 32 !== 0) out.push(0);
  return new Uint8Array(out);
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GgufError);
    return (e as GgufError).code;
  }
  throw new Error('expected a GgufError');
}

describe('GGUF container', () => {
  it('writes exactly the bytes the specification lays out', () => {
    const bytes = encodeGguf({
      metadata: new Map([['general.architecture', gguf.str('llama')]]),
      tensors: [{ name: 'w', type: 'F32', shape: [2, 3], data: new Float32Array([1, 2, 3, 4, 5, 6]) }],
    });
    expect(bytes).toEqual(specBytes());
  });

  it('round-trips every metadata type and F32 / F16 / BF16 tensors, each 32-byte aligned', () => {
    const metadata = new Map<string, GgufValue>([
      ['u8', { type: 'u8', value: 250 }],
      ['i8', { type: 'i8', value: -5 }],
      ['u16', { type: 'u16', value: 65000 }],
      ['i16', { type: 'i16', value: -300 }],
      ['u32', gguf.u32(4_000_000_000)],
      ['i32', gguf.i32(-7)],
      ['f32', gguf.f32(0.5)],
      ['f64', { type: 'f64', value: 1e-300 }],
      ['u64', { type: 'u64', value: 2n ** 60n }],
      ['i64', { type: 'i64', value: -(2n ** 40n) }],
      ['bool', gguf.bool(true)],
      ['str', gguf.str('héllo 世界')],
      ['tokens', gguf.array('string', ['a', 'Ġb', ''])],
      ['types', gguf.array('i32', [1, 3, -1])],
    ]);
    const tensors = [
      { name: 'a', type: 'F32' as const, shape: [3], data: new Float32Array([1, -2, 3.5]) },
      { name: 'b', type: 'F16' as const, shape: [1, 5], data: new Uint16Array([0x3c00, 1, 2, 3, 0xfbff]) },
      { name: 'c', type: 'BF16' as const, shape: [2, 1, 3], data: new Uint16Array([1, 2, 3, 4, 5, 6]) },
    ];
    const bytes = encodeGguf({ metadata, tensors });
    const file = decodeGguf(bytes);
    expect(file.version).toBe(3);
    expect(file.metadata).toEqual(metadata);
    expect(file.tensors).toEqual(tensors);
    expect(bytes.length % 32).toBe(0);
  });

  it('honours a custom general.alignment', () => {
    const bytes = encodeGguf({
      metadata: new Map([['general.alignment', gguf.u32(64)]]),
      tensors: [
        { name: 'x', type: 'F32', shape: [3], data: new Float32Array([1, 2, 3]) },
        { name: 'y', type: 'F32', shape: [1], data: new Float32Array([9]) },
      ],
    });
    expect(bytes.length % 64).toBe(0);
    const y = decodeGguf(bytes).tensors[1];
    expect(Array.from(y.data)).toEqual([9]);
    const expectedStart = bytes.length - 64; // y sits in the last 64-byte block
    expect(new Float32Array(bytes.slice(expectedStart, expectedStart + 4).buffer)[0]).toBe(9);
    expect(codeOf(() => encodeGguf({ metadata: new Map([['general.alignment', gguf.u32(12)]]), tensors: [] }))).toBe('BAD_VALUE');
  });

  it('writeGguf writes the encoded bytes to disk', () => {
    const file = { metadata: new Map([['k', gguf.str('v')]]), tensors: [{ name: 't', type: 'F32' as const, shape: [2], data: new Float32Array([1, 2]) }] };
    const path = join(root, 'm.gguf');
    writeGguf(path, file);
    expect(new Uint8Array(readFileSync(path))).toEqual(encodeGguf(file));
  });

  it('refuses bad tensors when writing', () => {
    const bad = (t: object) => () => encodeGguf({ metadata: new Map(), tensors: [t as never] });
    expect(codeOf(bad({ name: 'x', type: 'F32', shape: [3], data: new Float32Array(2) }))).toBe('BAD_TENSOR');
    expect(codeOf(bad({ name: 'x', type: 'F16', shape: [2], data: new Float32Array(2) }))).toBe('BAD_TENSOR');
    expect(codeOf(bad({ name: 'x', type: 'Q3_K', shape: [256], data: new Uint8Array(110) }))).toBe('UNSUPPORTED_TYPE');
    expect(codeOf(bad({ name: 'x', type: 'Q4_0', shape: [2], data: new Uint8Array(18) }))).toBe('BAD_TENSOR'); // not whole blocks
    expect(codeOf(bad({ name: 'x', type: 'Q4_0', shape: [32], data: new Float32Array(32) }))).toBe('BAD_TENSOR'); // blocks are bytes
    expect(codeOf(bad({ name: 'x', type: 'F32', shape: [1, 1, 1, 1, 1], data: new Float32Array(1) }))).toBe('BAD_TENSOR');
  });

  it('refuses hostile files with typed errors', () => {
    const good = specBytes();
    const withByte = (at: number, value: number) => {
      const b = good.slice();
      b[at] = value;
      return b;
    };
    expect(codeOf(() => decodeGguf(withByte(0, 0x48)))).toBe('BAD_MAGIC');
    expect(codeOf(() => decodeGguf(withByte(4, 1)))).toBe('BAD_VERSION');
    expect(codeOf(() => decodeGguf(good.subarray(0, 60)))).toBe('TRUNCATED');
    expect(codeOf(() => decodeGguf(good.subarray(0, good.length - 12)))).toBe('TRUNCATED');
    expect(codeOf(() => decodeGguf(withByte(52, 99)))).toBe('BAD_VALUE'); // metadata value type
    expect(codeOf(() => decodeGguf(withByte(98, 11)))).toBe('UNSUPPORTED_TYPE'); // tensor type Q3_K
    expect(() => decodeGguf(withByte(98, 11))).toThrow(/"w" is Q3_K \(ggml type 11\)/);
    expect(codeOf(() => decodeGguf(withByte(98, 8)))).toBe('BAD_TENSOR'); // Q8_0 rows of 3: not whole 32-weight blocks
    expect(codeOf(() => decodeGguf(withByte(102, 4)))).toBe('BAD_TENSOR'); // offset 4: misaligned
    expect(codeOf(() => decodeGguf(withByte(16, 0xff)))).toBe('BAD_VALUE'); // absurd metadata count
  });
});
