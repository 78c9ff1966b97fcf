import type { RolloutMode } from '../../../electron/contract';

/**
 * A rollout's outcome in words. Success is the real environment's final check, so a rollout that
 * never touched it (rehearsed: every observation imagined) has none — said as such, not as
 * "unscored", since its reward (the checklist over its transcript) is still there.
 */
export function outcomeLabel(r: { success: boolean | null; mode: RolloutMode }): string {
  if (r.success !== null) return r.success ? 'succeeded' : 'failed';
  return r.mode === 'rehearse' ? 'rehearsed: no real check' : 'no real check';
}
