// Shared helpers for native-models tests: a seeded PRNG and running a built graph through ORT.
import type { Graph, Tensor } from '../../../native-models/graph/builder';
import { toOnnxBytes } from '../../../native-models/graph/serialize';
import { createSession, ort } from '../../../native-models/runtime/session';
import type { AnyTypedArray, DType } from '../../../native-models/graph/types';

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomArray(n: number, rand: () => number, lo = -1, hi = 1): number[] {
  return Array.from({ length: n }, () => lo + (hi - lo) * rand());
}

export function ortTensor(dtype: DType, data: ArrayLike<number> | AnyTypedArray, dims: readonly number[]): ort.Tensor {
  switch (dtype) {
    case 'float32': return new ort.Tensor('float32', Float32Array.from(data as ArrayLike<number>), dims);
    case 'float64': return new ort.Tensor('float64', Float64Array.from(data as ArrayLike<number>), dims);
    case 'int64': return new ort.Tensor('int64', BigInt64Array.from(Array.from(data as ArrayLike<number>, (v) => BigInt(v))), dims);
    case 'int32': return new ort.Tensor('int32', Int32Array.from(data as ArrayLike<number>), dims);
    case 'bool': return new ort.Tensor('bool', Uint8Array.from(data as ArrayLike<number>), dims);
  }
}

export async function compile(g: Graph) {
  return (await createSession(toOnnxBytes(g))).session;
}

export type Outputs = Record<string, number[]>;

export async function run(session: ort.InferenceSession, feeds: Record<string, ort.Tensor>): Promise<Outputs> {
  const res = await session.run(feeds);
  return Object.fromEntries(Object.entries(res).map(([k, v]) => [k, Array.from(v.data as ArrayLike<number | bigint>, Number)]));
}

export function staticShape(t: Tensor): number[] {
  return t.shape.map((d) => {
    if (typeof d !== 'number') throw new Error(`test expects static shapes, got ${d}`);
    return d;
  });
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
