// Value types shared by the graph builder, the autodiff walker and the serialiser.

export type DType = 'float32' | 'float64' | 'int64' | 'int32' | 'bool';

/** A dimension: a fixed size, or a symbol (`'B'`, `'T'`, products such as `'B*T'`). */
export type Dim = number | string;
export type Shape = readonly Dim[];

export const FLOAT_DTYPES: readonly DType[] = ['float32', 'float64'];
export const isFloat = (d: DType): boolean => d === 'float32' || d === 'float64';

/** Attribute payloads; the kind of each attribute is declared once in `ops.ts`. */
export type AttrValue = number | number[] | string | DType | ScalarTensor;
export interface ScalarTensor {
  readonly dtype: DType;
  readonly value: number;
}
export type Attrs = Readonly<Record<string, AttrValue>>;

/** Typed array for each dtype, as stored in initialisers and exchanged with ONNX Runtime. */
export type TypedArrayOf<D extends DType> = D extends 'float32'
  ? Float32Array
  : D extends 'float64'
    ? Float64Array
    : D extends 'int64'
      ? BigInt64Array
      : D extends 'int32'
        ? Int32Array
        : Uint8Array;

export type AnyTypedArray = Float32Array | Float64Array | BigInt64Array | Int32Array | Uint8Array;

export class GraphError extends Error {
  override readonly name = 'GraphError';
}

export function formatShape(shape: Shape): string {
  return `[${shape.join(',')}]`;
}

export function isStatic(shape: Shape): shape is readonly number[] {
  return shape.every((d) => typeof d === 'number');
}

export function numel(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}
