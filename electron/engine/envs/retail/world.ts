/**
 * The slice of the retail DB a generated task set plays in. `worldSize` users are drawn (by a
 * fixed world seed) from the users who have orders; a seeded fifth of them (at least one) is
 * held out, so heldout tasks are about users — and therefore orders — that training never saw.
 */
import type { Db, JsonObject } from '../tau2/db';
import type { Split } from '../types';

/** mulberry32: a tiny seeded PRNG, so generated worlds and task sets are reproducible. */
export type Rng = () => number;
export function seededRng(seed: number): Rng {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stable 32-bit hash of a string (FNV-1a), to derive per-split seeds. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function shuffle<T>(xs: readonly T[], rng: Rng): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export const pick = <T>(xs: readonly T[], rng: Rng): T => xs[Math.floor(rng() * xs.length)];

export class WorldConfigError extends Error {
  override name = 'WorldConfigError';
}

export const MIN_WORLD_SIZE = 5;

export interface RetailWorld {
  size: number;
  /** User ids per split: train and heldout are disjoint; ood draws from the whole world. */
  users: Record<Split, string[]>;
}

export function buildWorld(db: Db, size: number, worldSeed: number): RetailWorld {
  const candidates = Object.values(db.users as JsonObject)
    .filter((u) => ((u as JsonObject).orders as string[]).length > 0)
    .map((u) => String((u as JsonObject).user_id))
    .sort();
  if (!Number.isInteger(size) || size < MIN_WORLD_SIZE || size > candidates.length) {
    throw new WorldConfigError(`retail world size must be an integer in [${MIN_WORLD_SIZE}, ${candidates.length}], got ${size}`);
  }
  const chosen = shuffle(candidates, seededRng(worldSeed)).slice(0, size);
  const nHeld = Math.max(1, Math.round(size / 5));
  return {
    size,
    users: { train: chosen.slice(nHeld), heldout: chosen.slice(0, nHeld), ood: chosen },
  };
}
