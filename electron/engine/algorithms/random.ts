/**
 * The run's randomness, derived rather than carried: every draw is a pure function of the run seed
 * and a label (step, task, rollout), so a resumed run replays exactly the same data order and
 * sampling seeds without storing a generator state.
 */

import { hashString, Rng } from '../random';

export { Rng };

/** A seed for one labelled purpose, e.g. deriveSeed(seed, 'generate', step, turn). */
export function deriveSeed(seed: number, ...labels: Array<string | number>): number {
  return hashString(`${seed}:${labels.join(':')}`);
}


/**
 * Items `cursor .. cursor + n − 1` of an endless stream that walks `items` in a fresh seeded order
 * each epoch. A pure function of (items, seed, cursor): the data cursor is all a checkpoint needs.
 */
export function epochSlice<T>(items: readonly T[], seed: number, cursor: number, n: number): T[] {
  if (items.length === 0) return [];
  const out: T[] = [];
  let order: T[] = [];
  let orderEpoch = -1;
  for (let k = cursor; k < cursor + n; k++) {
    const epoch = Math.floor(k / items.length);
    if (epoch !== orderEpoch) {
      order = new Rng(deriveSeed(seed, 'epoch', epoch)).shuffle(items);
      orderEpoch = epoch;
    }
    out.push(order[k % items.length]);
  }
  return out;
}
