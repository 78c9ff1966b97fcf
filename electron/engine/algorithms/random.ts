/**
 * The run's randomness, derived rather than carried: every draw is a pure function of the run seed
 * and a label (step, task, rollout), so a resumed run replays exactly the same data order and
 * sampling seeds without storing a generator state.
 */

/** 32-bit FNV-1a of a string. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A seed for one labelled purpose, e.g. deriveSeed(seed, 'generate', step, turn). */
export function deriveSeed(seed: number, ...labels: Array<string | number>): number {
  return hash32(`${seed}:${labels.join(':')}`);
}

/** Mulberry32 with an inspectable state. */
export class Rng {
  constructor(private s: number) {
    this.s = s >>> 0;
  }

  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  get state(): number {
    return this.s;
  }
}

/** Fisher–Yates shuffle of a copy. */
export function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
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
      order = shuffled(items, new Rng(deriveSeed(seed, 'epoch', epoch)));
      orderEpoch = epoch;
    }
    out.push(order[k % items.length]);
  }
  return out;
}
