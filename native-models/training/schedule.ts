// Learning-rate schedule: linear warmup, then cosine decay to minLrRatio·lr (or constant). A pure function of the step.

export interface Schedule {
  lr: number;
  warmupSteps: number;
  totalSteps: number;
  /** Final learning rate as a fraction of `lr` (cosine only). */
  minLrRatio: number;
  /** After warm-up: cosine decay to the floor (default), or `lr` throughout. */
  kind?: 'cosine' | 'constant';
}

/** Learning rate for optimiser step `step` (0-based: the first update uses step 0). */
export function lrAt(step: number, s: Schedule): number {
  if (!Number.isInteger(step) || step < 0) throw new RangeError(`lrAt: step must be a non-negative integer, got ${step}`);
  if (step < s.warmupSteps) return (s.lr * (step + 1)) / s.warmupSteps;
  if (s.kind === 'constant') return s.lr;
  const decaySteps = Math.max(1, s.totalSteps - s.warmupSteps);
  const progress = Math.min(1, (step - s.warmupSteps) / decaySteps);
  const floor = s.lr * s.minLrRatio;
  return floor + (s.lr - floor) * 0.5 * (1 + Math.cos(Math.PI * progress));
}
