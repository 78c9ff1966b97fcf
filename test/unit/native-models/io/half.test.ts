import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  bf16ToFloat32,
  f16ToFloat32,
  float32ToBf16,
  float32ToF16,
} from '../../../../native-models/io/half';

// numpy is the oracle: its float16 cast rounds to nearest even, and bfloat16 is float32's top half
// rounded the same way (computed below with integer arithmetic, independently of our code).
const PYTHON = '/usr/bin/python3';

function edgeValues(): Float32Array {
  const v: number[] = [0, -0, 1, -1, 0.1, 1 / 3, 65504, 65519, 65520, 1e6, -1e6, 2 ** -24, 2 ** -25, 3 * 2 ** -26, 2 ** -14, 2 ** -15];
  v.push(Infinity, -Infinity, 1.00048828125, 1.00146484375, 1.0009765625 + 2 ** -12); // f16 ties and near-ties
  v.push(1 + 2 ** -8, 1 + 3 * 2 ** -8, 3.4e38, 1e-40);
  let s = 12345;
  for (let i = 0; i < 2000; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const mag = 2 ** ((s % 60) - 30);
    v.push(((s >>> 8) / 2 ** 24 - 0.5) * mag);
  }
  return new Float32Array(v);
}

function numpyHalfBits(values: Float32Array): { f16: number[]; bf16: number[] } {
  const script = `
import sys, json, numpy as np
x = np.frombuffer(sys.stdin.buffer.read(), dtype='<f4')
with np.errstate(over='ignore'):
    f16 = x.astype(np.float16).view(np.uint16)
u = x.view(np.uint32).astype(np.uint64)
bf16 = ((u + 0x7fff + ((u >> 16) & 1)) >> 16) & 0xffff
print(json.dumps({"f16": f16.tolist(), "bf16": bf16.astype(np.uint32).tolist()}))
`;
  const out = execFileSync(PYTHON, ['-c', script], { input: Buffer.from(values.buffer), encoding: 'utf8' });
  return JSON.parse(out);
}

describe('half-precision conversions', () => {
  it('float32 → f16 and → bf16 match numpy bit for bit, including ties, subnormals and overflow', () => {
    const values = edgeValues();
    const oracle = numpyHalfBits(values);
    expect(Array.from(float32ToF16(values))).toEqual(oracle.f16);
    expect(Array.from(float32ToBf16(values))).toEqual(oracle.bf16);
  });

  it('every f16 bit pattern decodes to a value that encodes back to the same bits', () => {
    const all = new Uint16Array(65536).map((_, i) => i);
    const decoded = f16ToFloat32(all);
    const reencoded = float32ToF16(decoded);
    for (let i = 0; i < 65536; i++) {
      const isNan = (i & 0x7c00) === 0x7c00 && (i & 0x3ff) !== 0;
      if (isNan) expect(Number.isNaN(decoded[i])).toBe(true);
      else expect(reencoded[i]).toBe(i);
    }
    expect(decoded[0x3c00]).toBe(1);
    expect(decoded[0x0001]).toBe(2 ** -24);
    expect(decoded[0xfbff]).toBe(-65504);
  });

  it('bf16 decode is the top half of float32 and survives a round trip', () => {
    const all = new Uint16Array(65536).map((_, i) => i);
    const decoded = bf16ToFloat32(all);
    const bits = new Uint32Array(decoded.buffer);
    for (let i = 0; i < 65536; i += 97) expect(bits[i]).toBe(i << 16 >>> 0);
    const back = float32ToBf16(decoded);
    for (let i = 0; i < 65536; i++) {
      if (Number.isNaN(decoded[i])) expect(Number.isNaN(bf16ToFloat32(back.subarray(i, i + 1))[0])).toBe(true);
      else expect(back[i]).toBe(i);
    }
  });
});
