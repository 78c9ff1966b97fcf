/**
 * The slice of the retail DB a generated task set plays in. `worldSize` users are drawn (by a
 * fixed world seed) from the users who have orders; a seeded fifth of them (at least one) is
 * held out, so heldout tasks are about users — and therefore orders — that training never saw.
 */
import type { Db, JsonObject } from '../tau2/db';
import type { Split } from '../types';
import { hashString, Rng as EngineRng } from '../../random';

/** A seeded draw function over the engine's PRNG, so generated worlds and task sets are reproducible. */
export type Rng = () => number;
export function seededRng(seed: number): Rng {
  const rng = new EngineRng(seed);
  return () => rng.next();
}

export { hashString };

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
