/**
 * Role-wise GRPO advantages (algorithms.md "Role-wise GRPO"). For one task's group of K rollouts,
 * every generated output (an action or a rehearsed observation) gets A = R_i − μ_{role}, where the
 * baseline μ pools the rewards of the outputs of that role (`pooled-per-output`, as EnvACE's released
 * code does) or of the rollouts that have such an output (`per-rollout`). `shared` folds both roles
 * into one group (the envace-shared-baseline ablation).
 */
import type { RunConfig } from '../../contract';
import { AlgorithmError } from './errors';
import type { Segment } from './layout';

export type OutputRole = 'act' | 'rehearse';

export interface GroupOutput {
  /** Index of the rollout (into `rewards`) this output belongs to. */
  rollout: number;
  role: OutputRole;
}

export interface AdvantageOptions {
  baseline: 'pooled-per-output' | 'per-rollout';
  /** One baseline for both roles. */
  shared: boolean;
  /** Divide by the group's standard deviation (same weighting as the baseline). */
  stdNormalize: boolean;
}

export const DEFAULT_ADVANTAGE_OPTIONS: AdvantageOptions = { baseline: 'pooled-per-output', shared: false, stdNormalize: false };

const STD_EPS = 1e-6;

/** One advantage per output, in the order given. */
export function roleAdvantages(
  rewards: readonly number[],
  outputs: readonly GroupOutput[],
  opts: AdvantageOptions = DEFAULT_ADVANTAGE_OPTIONS,
): number[] {
  rewards.forEach((r, i) => {
    if (!Number.isFinite(r)) throw new AlgorithmError(`reward of rollout ${i} is not a finite number (${r})`);
  });
  outputs.forEach((o, j) => {
    if (!Number.isInteger(o.rollout) || o.rollout < 0 || o.rollout >= rewards.length)
      throw new AlgorithmError(`output ${j} refers to rollout ${o.rollout}; the group has ${rewards.length}`);
  });
  const groupOf = (o: GroupOutput) => (opts.shared ? 'all' : o.role);
  const members = new Map<string, number[]>();
  outputs.forEach((o, j) => {
    const key = groupOf(o);
    members.set(key, [...(members.get(key) ?? []), j]);
  });
  const stats = new Map<string, { mean: number; std: number; size: number }>();
  for (const [key, idx] of members) {
    // The values the baseline averages: one per output, or one per rollout that has such an output.
    const values =
      opts.baseline === 'pooled-per-output'
        ? idx.map((j) => rewards[outputs[j].rollout])
        : [...new Set(idx.map((j) => outputs[j].rollout))].map((i) => rewards[i]);
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    const std = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length);
    stats.set(key, { mean, std, size: idx.length });
  }
  return outputs.map((o) => {
    const g = stats.get(groupOf(o))!;
    // A role with a single output has nothing to compare against.
    // Equal rewards carry no signal; return an exact 0 rather than a rounding residue of the mean.
    if (g.size < 2 || g.std < STD_EPS) return 0;
    const a = rewards[o.rollout] - g.mean;
    return opts.stdNormalize ? a / g.std : a;
  });
}

/** Plain GRPO over one group of rewards (RWML, and grpo-real where every rollout is one output). */
export function groupAdvantages(rewards: readonly number[], stdNormalize: boolean): number[] {
  return roleAdvantages(
    rewards,
    rewards.map((_, i) => ({ rollout: i, role: 'act' as const })),
    { baseline: 'pooled-per-output', shared: true, stdNormalize },
  );
}

/** Mean reward of the outputs of each role (the pooled baseline), for logging. */
export function roleRewardMeans(rewards: readonly number[], outputs: readonly GroupOutput[]): Partial<Record<OutputRole, number>> {
  const out: Partial<Record<OutputRole, number>> = {};
  for (const role of ['act', 'rehearse'] as const) {
    const rs = outputs.filter((o) => o.role === role).map((o) => rewards[o.rollout]);
    if (rs.length) out[role] = rs.reduce((s, v) => s + v, 0) / rs.length;
  }
  return out;
}

/** The run's baseline rule: the same for every loop that forms groups, so methods differ only where they mean to. */
export function advantageOptions(c: RunConfig, shared = false): AdvantageOptions {
  return { baseline: c.loss.baseline, shared, stdNormalize: c.loss.stdNormalize };
}

/** A rollout as the baseline rule sees it: its reward and the segments it generated. */
export interface GroupRollout {
  reward: number;
  segments: Segment[];
  /** Simulator-prompt rows (their last segment is a generated observation). */
  simulatorRows: Segment[][];
}

/** One task's group as assigned: the rewards, the trained outputs and their advantages (same order). */
export interface AssignedGroup {
  rewards: number[];
  outputs: GroupOutput[];
  advantages: number[];
}

/**
 * Role-wise advantages for one task's group of K rollouts, set on each generated segment of a
 * trained role (in the actor's stream, and the answer of each simulator row). grpo-real, the envace
 * variants and PaW all assign through here, so PaW's policy term is grpo-real's exactly: only the
 * world-model loss tells them apart.
 */
export function assignGroupAdvantages(group: readonly GroupRollout[], roles: readonly OutputRole[], opts: AdvantageOptions): AssignedGroup {
  const rewards = group.map((r) => r.reward);
  const generated = (r: GroupRollout) => [...r.segments, ...r.simulatorRows.map((row) => row[row.length - 1])];
  const refs = group.flatMap((r, i) =>
    generated(r)
      .filter((s) => s.logprobs.length && (roles as readonly string[]).includes(s.role))
      .map((segment) => ({ segment, out: { rollout: i, role: segment.role as OutputRole } })),
  );
  const outputs = refs.map((x) => x.out);
  const advantages = roleAdvantages(rewards, outputs, opts);
  refs.forEach((x, j) => (x.segment.advantage = advantages[j]));
  return { rewards, outputs, advantages };
}

/** Whether a group's rewards differ at all (the same tolerance under which roleAdvantages returns 0). */
export function hasRewardVariance(rewards: readonly number[]): boolean {
  const mean = rewards.reduce((s, v) => s + v, 0) / Math.max(rewards.length, 1);
  return Math.sqrt(rewards.reduce((s, v) => s + (v - mean) ** 2, 0) / Math.max(rewards.length, 1)) >= STD_EPS;
}
