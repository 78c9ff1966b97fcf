import os from 'node:os';

/**
 * How much longer than on a quiet machine a wait may take here. Tests never assert speed (benchmarks
 * measure it), so a time-out only guards against a hang; on a loaded laptop or CI box (load 12–17 on
 * two cores made 120 s and 180 s limits fail working tests) every limit stretches with the load.
 * Read when each test file loads, so it follows the load through a long suite. ENVACE_TEST_PATIENCE
 * fixes the factor (e.g. 1 to find slow tests on a quiet machine).
 */
export function patienceFactor(): number {
  const fixed = Number(process.env.ENVACE_TEST_PATIENCE);
  if (Number.isFinite(fixed) && fixed > 0) return fixed;
  const perCore = os.loadavg()[0]! / Math.max(1, os.cpus().length);
  // A quiet machine still gets some headroom; the cap keeps a real hang from running for hours.
  return Math.min(8, Math.max(1.5, 1 + perCore));
}

/** `ms` as it should be allowed here: a time-out scaled by the machine's load. */
export function patience(ms: number): number {
  return Math.round(ms * patienceFactor());
}
