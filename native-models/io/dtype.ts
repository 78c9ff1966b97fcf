// Element types as safetensors names them, and the JS typed array that holds each.
// F16 / BF16 / F8 are kept as their raw bit patterns (Uint16Array / Uint8Array): JS has no
// half-precision array, and converting on read is a caller's choice (see half.ts).

export const DTYPES = {
  F64: { bytes: 8, array: Float64Array },
  F32: { bytes: 4, array: Float32Array },
  F16: { bytes: 2, array: Uint16Array },
  BF16: { bytes: 2, array: Uint16Array },
  F8_E4M3: { bytes: 1, array: Uint8Array },
  F8_E5M2: { bytes: 1, array: Uint8Array },
  I64: { bytes: 8, array: BigInt64Array },
  I32: { bytes: 4, array: Int32Array },
  I16: { bytes: 2, array: Int16Array },
  I8: { bytes: 1, array: Int8Array },
  U64: { bytes: 8, array: BigUint64Array },
  U32: { bytes: 4, array: Uint32Array },
  U16: { bytes: 2, array: Uint16Array },
  U8: { bytes: 1, array: Uint8Array },
  BOOL: { bytes: 1, array: Uint8Array },
} as const;

export type Dtype = keyof typeof DTYPES;

export type TensorData =
  | Float64Array
  | Float32Array
  | Uint16Array
  | Uint8Array
  | BigInt64Array
  | Int32Array
  | Int16Array
  | Int8Array
  | BigUint64Array
  | Uint32Array;

/** A tensor held in JS memory, row-major, little-endian. */
export interface HostTensor {
  dtype: Dtype;
  shape: number[];
  data: TensorData;
}

export function isDtype(name: unknown): name is Dtype {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(DTYPES, name);
}

/** Product of the dims; 1 for a scalar (shape []). Returns NaN when a dim is not a non-negative integer. */
export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0) return Number.NaN;
    n *= d;
  }
  return Number.isSafeInteger(n) ? n : Number.NaN;
}

/** True when `data` is the typed array a tensor of `dtype` is stored in. */
export function dataMatchesDtype(dtype: Dtype, data: TensorData): boolean {
  return data instanceof DTYPES[dtype].array;
}

export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}
