/** Rollout-side metrics every RL loop reports. */
import type { GroupOutput } from '../advantages';
import { roleRewardMeans } from '../advantages';
import type { RolloutResult } from '../rollout';

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, v) => s + v, 0) / xs.length : 0);

export function rolloutMetrics(
  results: readonly RolloutResult[],
  groups: Array<{ rewards: number[]; outputs: GroupOutput[] }>,
  wallMs: number,
): Record<string, number> {
  const m: Record<string, number> = {
    reward: mean(results.map((r) => r.reward)),
    env_calls: results.reduce((s, r) => s + r.envCalls, 0),
    tokens_generated: results.reduce((s, r) => s + r.tokensGenerated, 0),
    turns: mean(results.map((r) => r.turns.length)),
    format_error_rate: mean(results.map((r) => (r.checklist.formatError ? 1 : 0))),
    full_score_rate: mean(results.map((r) => (r.reward >= 1 ? 1 : 0))),
    memory_rate: mean(results.map((r) => (r.segments.some((s) => s.role === 'memory') ? 1 : 0))),
  };
  m.tokens_per_s = (m.tokens_generated / Math.max(wallMs, 1)) * 1000;
  const real = results.filter((r) => r.success !== null);
  if (real.length) m.success = mean(real.map((r) => (r.success ? 1 : 0)));
  // Per-role reward: the mean reward over each role's outputs (the pooled baseline), averaged over tasks.
  for (const role of ['act', 'rehearse'] as const) {
    const per = groups.map((g) => roleRewardMeans(g.rewards, g.outputs)[role]).filter((x): x is number => x !== undefined);
    if (per.length) m[`reward/${role}`] = mean(per);
  }
  return m;
}
