// Seeded choices for the file fuzz suites: the engine's generator, so every run tries the same variants.
import { Rng } from '../../../electron/engine/random';

export type Rand = () => number;

export const rand = (seed: number): Rand => {
  const g = new Rng(seed);
  return () => g.next();
};

export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
