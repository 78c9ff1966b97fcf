/**
 * The engine's one seeded PRNG (mulberry32) and string hash. Worlds, task lists, data order and
 * sampling seeds must be identical for the same seed on every machine, so nothing touches Math.random.
 *
 * A run's randomness is derived rather than carried: every draw is a pure function of the run seed
 * and a label (step, task, rollout), so a resumed run replays exactly the same data order and
 * sampling seeds without storing a generator state.
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty list');
    return items[Math.floor(this.next() * items.length)];
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}

/** A stable 32-bit hash of a string (FNV-1a), used to derive seeds and split buckets from names. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

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
