// Conversions between float32 and the two 16-bit float formats found in checkpoints.
// Both directions round to nearest, ties to even, as PyTorch's `.half()` / `.bfloat16()` do.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE 754 binary16 bits → number (exact). */
export function f16BitsToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24; // zero or subnormal
  if (exp === 0x1f) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** number → IEEE 754 binary16 bits, rounding to nearest even; overflow gives ±Infinity. */
export function numberToF16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp32 = (bits >>> 23) & 0xff;
  const mant32 = bits & 0x7fffff;
  if (exp32 === 0xff) return sign | 0x7c00 | (mant32 ? 0x200 : 0); // Inf or (quiet) NaN
  const exp = exp32 - 127 + 15;
  if (exp >= 0x1f) return sign | 0x7c00;
  if (exp <= 0) {
    // Subnormal half (or underflow to zero): shift the full 24-bit significand into place.
    if (exp < -10) return sign;
    const mant = mant32 | 0x800000;
    const shift = 14 - exp;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && half & 1)) half += 1;
    return sign | half;
  }
  let half = (exp << 10) | (mant32 >>> 13);
  const rest = mant32 & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (and may reach Inf).
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half += 1;
  return sign | half;
}

export function bf16BitsToNumber(h: number): number {
  u32[0] = (h & 0xffff) << 16;
  return f32[0];
}

export function numberToBf16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0];
  if ((bits & 0x7f800000) === 0x7f800000 && bits & 0x7fffff) return ((bits >>> 16) | 0x40) & 0xffff; // keep NaN a NaN
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

export function f16ToFloat32(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = f16BitsToNumber(bits[i]);
  return out;
}

export function bf16ToFloat32(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  const outBits = new Uint32Array(out.buffer);
  for (let i = 0; i < bits.length; i++) outBits[i] = bits[i] << 16;
  return out;
}

export function float32ToF16(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = numberToF16Bits(values[i]);
  return out;
}

export function float32ToBf16(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = numberToBf16Bits(values[i]);
  return out;
}
