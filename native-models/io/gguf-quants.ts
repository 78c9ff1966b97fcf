// ggml's tensor element types as a GGUF file stores them, and their dequantisation to float32.
// Quantised types pack a fixed number of weights (a block) into a fixed number of bytes: small integers
// plus one or two f16 scales per block (K-quants: 256-weight super-blocks with 6-bit sub-block scales).
// Layouts follow ggml's block_* structs. Every product and sum is rounded to float32 (Math.fround) in the
// order ggml's reference dequantize_row_* and gguf-py's quants.py do it, so the values are bit-identical.

import { bf16BitsToNumber, f16BitsToNumber, numberToF16Bits } from './half';

export interface GgmlTypeInfo {
  /** ggml_type id in the file. */
  id: number;
  /** Weights per block (1 for plain floats). */
  blockSize: number;
  /** Bytes per block. */
  blockBytes: number;
}

/** Every type this reader dequantises. */
export const GGML_READ_TYPES = {
  F32: { id: 0, blockSize: 1, blockBytes: 4 },
  F16: { id: 1, blockSize: 1, blockBytes: 2 },
  Q4_0: { id: 2, blockSize: 32, blockBytes: 18 },
  Q4_1: { id: 3, blockSize: 32, blockBytes: 20 },
  Q5_0: { id: 6, blockSize: 32, blockBytes: 22 },
  Q5_1: { id: 7, blockSize: 32, blockBytes: 24 },
  Q8_0: { id: 8, blockSize: 32, blockBytes: 34 },
  Q4_K: { id: 12, blockSize: 256, blockBytes: 144 },
  Q5_K: { id: 13, blockSize: 256, blockBytes: 176 },
  Q6_K: { id: 14, blockSize: 256, blockBytes: 210 },
  BF16: { id: 30, blockSize: 1, blockBytes: 2 },
} as const satisfies Record<string, GgmlTypeInfo>;
export type GgmlReadType = keyof typeof GGML_READ_TYPES;

/** Names of the ggml types this reader does not take, so an error can say which one a file uses. */
const OTHER_TYPE_NAMES: Readonly<Record<number, string>> = {
  9: 'Q8_1', 10: 'Q2_K', 11: 'Q3_K', 15: 'Q8_K', 16: 'IQ2_XXS', 17: 'IQ2_XS', 18: 'IQ3_XXS', 19: 'IQ1_S', 20: 'IQ4_NL',
  21: 'IQ3_S', 22: 'IQ2_S', 23: 'IQ4_XS', 24: 'I8', 25: 'I16', 26: 'I32', 27: 'I64', 28: 'F64', 29: 'IQ1_M', 34: 'TQ1_0',
  35: 'TQ2_0', 39: 'MXFP4',
};

export function ggmlReadTypeOf(id: number): GgmlReadType | undefined {
  return (Object.keys(GGML_READ_TYPES) as GgmlReadType[]).find((k) => GGML_READ_TYPES[k].id === id);
}

/** "Q3_K (ggml type 11)" or "ggml type 99": how an unsupported type is named in errors. */
export function ggmlTypeLabel(id: number): string {
  const name = ggmlReadTypeOf(id) ?? OTHER_TYPE_NAMES[id];
  return name ? `${name} (ggml type ${id})` : `ggml type ${id}`;
}

export const supportedTypeList = (): string => Object.keys(GGML_READ_TYPES).join(', ');

const f = Math.fround;

/** One block: reads `blockBytes` at `at`, writes `blockSize` floats at `o`. */
type BlockFn = (b: Uint8Array, v: DataView, at: number, out: Float32Array, o: number) => void;

const half = (v: DataView, at: number) => f16BitsToNumber(v.getUint16(at, true));

/** Q4_0: f16 scale d, 16 bytes of 4-bit values (low nibbles are weights 0–15, high 16–31), offset 8. */
const q4_0: BlockFn = (b, v, at, out, o) => {
  const d = half(v, at);
  for (let j = 0; j < 16; j++) {
    const q = b[at + 2 + j];
    out[o + j] = f(d * ((q & 0x0f) - 8));
    out[o + j + 16] = f(d * ((q >> 4) - 8));
  }
};

/** Q4_1: f16 scale d and minimum m, 4-bit values without offset: d·q + m. */
const q4_1: BlockFn = (b, v, at, out, o) => {
  const d = half(v, at);
  const m = half(v, at + 2);
  for (let j = 0; j < 16; j++) {
    const q = b[at + 4 + j];
    out[o + j] = f(f(d * (q & 0x0f)) + m);
    out[o + j + 16] = f(f(d * (q >> 4)) + m);
  }
};

/** Fifth bits of a Q5 block: bit j of the u32 qh is weight j's. */
const fifthBit = (qh: number, j: number) => ((qh >>> j) & 1) << 4;

/** Q5_0: f16 d, u32 of fifth bits, 16 bytes of low nibbles; offset 16. */
const q5_0: BlockFn = (b, v, at, out, o) => {
  const d = half(v, at);
  const qh = v.getUint32(at + 2, true);
  for (let j = 0; j < 16; j++) {
    const q = b[at + 6 + j];
    out[o + j] = f(d * (((q & 0x0f) | fifthBit(qh, j)) - 16));
    out[o + j + 16] = f(d * (((q >> 4) | fifthBit(qh, j + 16)) - 16));
  }
};

/** Q5_1: f16 d and m, u32 of fifth bits, 16 bytes of low nibbles: d·q + m. */
const q5_1: BlockFn = (b, v, at, out, o) => {
  const d = half(v, at);
  const m = half(v, at + 2);
  const qh = v.getUint32(at + 4, true);
  for (let j = 0; j < 16; j++) {
    const q = b[at + 8 + j];
    out[o + j] = f(f(d * ((q & 0x0f) | fifthBit(qh, j))) + m);
    out[o + j + 16] = f(f(d * ((q >> 4) | fifthBit(qh, j + 16))) + m);
  }
};

/** Q8_0: f16 d, 32 signed bytes. */
const q8_0: BlockFn = (_b, v, at, out, o) => {
  const d = half(v, at);
  for (let j = 0; j < 32; j++) out[o + j] = f(d * v.getInt8(at + 2 + j));
};

/**
 * The 6-bit scale and minimum of sub-block j (0–7) from a K-quant's 12 scale bytes: sub-blocks 0–3 keep
 * theirs in the low 6 bits of bytes j and j+4; 4–7 split theirs between a nibble of byte j+4 and the top
 * two bits of bytes j-4 and j.
 */
function scaleMinK4(s: Uint8Array, at: number, j: number): [number, number] {
  if (j < 4) return [s[at + j] & 63, s[at + j + 4] & 63];
  return [(s[at + j + 4] & 0x0f) | ((s[at + j - 4] >> 6) << 4), (s[at + j + 4] >> 4) | ((s[at + j] >> 6) << 4)];
}

/**
 * Q4_K / Q5_K super-block: f16 d and dmin, 12 scale bytes, (Q5_K: 32 bytes of fifth bits,) 128 bytes of
 * nibbles. Each 64 weights share 32 bytes: low nibbles are the first 32 (sub-block 2i), high the next.
 */
function kQuant(withFifthBits: boolean): BlockFn {
  return (b, v, at, out, o) => {
    const d = half(v, at);
    const dmin = half(v, at + 2);
    const scales = at + 4;
    const qh = at + 16;
    const qs = withFifthBits ? at + 48 : at + 16;
    for (let i = 0; i < 4; i++) {
      const [sc1, m1] = scaleMinK4(b, scales, 2 * i);
      const [sc2, m2] = scaleMinK4(b, scales, 2 * i + 1);
      const d1 = f(d * sc1);
      const min1 = f(dmin * m1);
      const d2 = f(d * sc2);
      const min2 = f(dmin * m2);
      for (let l = 0; l < 32; l++) {
        const q = b[qs + 32 * i + l];
        const h = withFifthBits ? b[qh + l] : 0;
        const lo = (q & 0x0f) | (((h >> (2 * i)) & 1) << 4);
        const hi = (q >> 4) | (((h >> (2 * i + 1)) & 1) << 4);
        out[o + 64 * i + l] = f(f(d1 * lo) - min1);
        out[o + 64 * i + 32 + l] = f(f(d2 * hi) - min2);
      }
    }
  };
}

/**
 * Q6_K super-block: 128 bytes of low nibbles, 64 bytes of 2-bit high parts, 16 signed 8-bit scales (one per
 * 16 weights), f16 d last. Each half (128 weights) uses 64 low bytes and 32 high bytes; offset 32.
 */
const q6_k: BlockFn = (b, v, at, out, o) => {
  const d = half(v, at + 208);
  for (let n = 0; n < 2; n++) {
    const ql = at + 64 * n;
    const qh = at + 128 + 32 * n;
    const sc = at + 192 + 8 * n;
    const y = o + 128 * n;
    for (let l = 0; l < 32; l++) {
      const is = l >> 4;
      const h = b[qh + l];
      const q1 = ((b[ql + l] & 0x0f) | ((h & 3) << 4)) - 32;
      const q2 = ((b[ql + l + 32] & 0x0f) | (((h >> 2) & 3) << 4)) - 32;
      const q3 = ((b[ql + l] >> 4) | (((h >> 4) & 3) << 4)) - 32;
      const q4 = ((b[ql + l + 32] >> 4) | (((h >> 6) & 3) << 4)) - 32;
      out[y + l] = f(f(d * v.getInt8(sc + is)) * q1);
      out[y + l + 32] = f(f(d * v.getInt8(sc + is + 2)) * q2);
      out[y + l + 64] = f(f(d * v.getInt8(sc + is + 4)) * q3);
      out[y + l + 96] = f(f(d * v.getInt8(sc + is + 6)) * q4);
    }
  }
};

const BLOCKS: Record<Exclude<GgmlReadType, 'F32' | 'F16' | 'BF16'>, BlockFn> = {
  Q4_0: q4_0,
  Q4_1: q4_1,
  Q5_0: q5_0,
  Q5_1: q5_1,
  Q8_0: q8_0,
  Q4_K: kQuant(false),
  Q5_K: kQuant(true),
  Q6_K: q6_k,
};

/** Bytes `count` weights of `type` take; `count` must be a whole number of blocks. */
export function ggmlByteSize(type: GgmlReadType, count: number): number {
  const t = GGML_READ_TYPES[type];
  return (count / t.blockSize) * t.blockBytes;
}

/** `count` weights of `type` stored in `bytes` (exactly ggmlByteSize bytes) as float32. */
export function dequantize(type: GgmlReadType, bytes: Uint8Array, count: number): Float32Array {
  const info = GGML_READ_TYPES[type];
  if (count % info.blockSize !== 0) throw new RangeError(`${count} ${type} weights are not a whole number of ${info.blockSize}-weight blocks`);
  if (bytes.length !== ggmlByteSize(type, count)) throw new RangeError(`${count} ${type} weights take ${ggmlByteSize(type, count)} bytes, got ${bytes.length}`);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(count);
  if (type === 'F32') for (let i = 0; i < count; i++) out[i] = v.getFloat32(4 * i, true);
  else if (type === 'F16') for (let i = 0; i < count; i++) out[i] = f16BitsToNumber(v.getUint16(2 * i, true));
  else if (type === 'BF16') for (let i = 0; i < count; i++) out[i] = bf16BitsToNumber(v.getUint16(2 * i, true));
  else {
    const block = BLOCKS[type];
    for (let i = 0, at = 0; i < count; i += info.blockSize, at += info.blockBytes) block(bytes, v, at, out, i);
  }
  return out;
}

/**
 * float32 weights → Q8_0 blocks (ggml's block_q8_0: f16 scale d, then 32 int8), as ggml's quantize_row_q8_0_ref
 * does it: d = max|x| / 127 in float32, q = roundf(x · (1/d)) (half away from zero) with the float32 1/d, not the
 * f16-rounded d — so the bytes equal llama.cpp's and gguf-py's `quants.quantize(…, Q8_0)`. An all-zero block gets d 0.
 */
export function quantizeQ8_0(values: Float32Array): Uint8Array {
  const { blockSize, blockBytes } = GGML_READ_TYPES.Q8_0;
  if (values.length % blockSize !== 0) throw new RangeError(`${values.length} weights are not a whole number of ${blockSize}-weight Q8_0 blocks`);
  const out = new Uint8Array((values.length / blockSize) * blockBytes);
  const v = new DataView(out.buffer);
  for (let i = 0, at = 0; i < values.length; i += blockSize, at += blockBytes) {
    let amax = 0;
    for (let j = 0; j < blockSize; j++) {
      const x = values[i + j];
      // A NaN or infinite weight has no 8-bit code; llama.cpp's would be garbage, ours is an error.
      if (!Number.isFinite(x)) throw new RangeError(`weight ${i + j} is ${x}; Q8_0 takes finite weights`);
      amax = Math.max(amax, Math.abs(x));
    }
    const d = f(amax / 127);
    const id = d === 0 ? 0 : f(1 / d);
    v.setUint16(at, numberToF16Bits(d), true);
    for (let j = 0; j < blockSize; j++) {
      const x0 = f(values[i + j] * id);
      v.setInt8(at + 2 + j, Math.sign(x0) * Math.floor(Math.abs(x0) + 0.5));
    }
  }
  return out;
}
