// Recognising a set of weights again without comparing them value by value.
import type { ParamSpec } from '../transformer/config';
import type { Params } from '../transformer/init';

/**
 * Which weights something was computed with (a baked session, cached keys): the arrays themselves and a strided sample of their values,
 * so new arrays (an optimiser step) and values overwritten in place both count as new weights.
 */
export class WeightStamp {
  private static readonly SAMPLES = 32;
  private readonly arrays: Float32Array[];
  private readonly sample: Float32Array;

  constructor(
    private readonly specs: readonly ParamSpec[],
    params: Params,
  ) {
    this.arrays = specs.map((s) => params.get(s.name)!);
    this.sample = WeightStamp.take(this.arrays);
  }

  matches(params: Params): boolean {
    if (!this.specs.every((s, k) => params.get(s.name) === this.arrays[k])) return false;
    const now = WeightStamp.take(this.arrays);
    return now.every((v, j) => Object.is(v, this.sample[j]));
  }

  private static take(arrays: readonly Float32Array[]): Float32Array {
    const n = WeightStamp.SAMPLES;
    const out = new Float32Array(arrays.length * n);
    arrays.forEach((a, k) => {
      for (let j = 0; j < n; j++) out[k * n + j] = a[Math.floor(((j + 0.5) * a.length) / n)] ?? 0;
    });
    return out;
  }
}
