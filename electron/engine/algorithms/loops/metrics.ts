/** Rollout-side metrics every RL loop reports. */
import type { GroupOutput } from '../advantages';
import { roleRewardMeans } from '../advantages';
import type { RolloutResult } from '../rollout';

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, v) => s + v, 0) / xs.length : 0);

/**
 * Fraction of task groups with at least one non-zero advantage. A group whose rollouts all scored
 * alike has all-zero advantages and adds nothing to the update but tokens to the normaliser; this
 * says how much of a step actually taught anything.
 */
export function groupsWithSignal(groups: ReadonlyArray<{ advantages: readonly number[] }>): number {
  return mean(groups.map((g) => (g.advantages.some((a) => a !== 0) ? 1 : 0)));
}

export function rolloutMetrics(
  results: readonly RolloutResult[],
  groups: Array<{ rewards: number[]; outputs: GroupOutput[]; advantages?: number[] }>,
  wallMs: number,
  /** Rollouts sampled but not trained on (groups redrawn by dynamic sampling): they cost env calls and tokens all the same. */
  discarded: readonly RolloutResult[] = [],
): Record<string, number> {
  const all = [...results, ...discarded];
  const m: Record<string, number> = {
    reward: mean(results.map((r) => r.reward)),
    env_calls: all.reduce((s, r) => s + r.envCalls, 0),
    tokens_generated: all.reduce((s, r) => s + r.tokensGenerated, 0),
    turns: mean(results.map((r) => r.turns.length)),
    format_error_rate: mean(results.map((r) => (r.checklist.formatError ? 1 : 0))),
    full_score_rate: mean(results.map((r) => (r.reward >= 1 ? 1 : 0))),
    memory_rate: mean(results.map((r) => (r.segments.some((s) => s.role === 'memory') ? 1 : 0))),
  };
  m.tokens_per_s = (m.tokens_generated / Math.max(wallMs, 1)) * 1000;
  const real = results.filter((r) => r.success !== null);
  if (real.length) m.success = mean(real.map((r) => (r.success ? 1 : 0)));
  // Episodes the environment failed (not the policy), redraws included: they cost a rollout all the same.
  if (all.some((r) => r.envCheck !== null)) m.env_failures = all.filter((r) => r.envFailure !== null).length;
  // Per-role reward: the mean reward over each role's outputs (the pooled baseline), averaged over tasks.
  for (const role of ['act', 'rehearse'] as const) {
    const per = groups.map((g) => roleRewardMeans(g.rewards, g.outputs)[role]).filter((x): x is number => x !== undefined);
    if (per.length) m[`reward/${role}`] = mean(per);
  }
  if (groups.length && groups.every((g) => g.advantages)) m.groups_with_signal = groupsWithSignal(groups as Array<{ advantages: number[] }>);
  return m;
}

/**
 * The episodes whose environment failed (its server did not start, crashed or hung), one line each
 * naming the task and what failed, for the run's log; null when none did. `where` says which
 * episodes ("step 3", "held-out evaluation at step 0").
 */
export function envFailureReport(where: string, results: readonly RolloutResult[]): string | null {
  const failed = results.filter((r) => r.envFailure !== null);
  if (!failed.length) return null;
  const lines = failed.slice(0, 20).map((r) => `  task ${r.task.id}: ${r.envFailure}`);
  if (failed.length > 20) lines.push(`  … and ${failed.length - 20} more`);
  return `${where}: ${failed.length} of ${results.length} episodes failed in the environment, not by the policy (each counted as a failure, in env_failures):\n${lines.join('\n')}`;
}
