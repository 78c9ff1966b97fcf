/**
 * Role-wise GRPO (EnvACE) and its baselines, one loop:
 *   grpo-real                 real env, act tokens trained (the environment-scaling baseline)
 *   envace                    rehearsal rollouts; act and rehearse outputs trained, one baseline per role
 *   envace-no-rehearse-loss   rehearsed observations used but not trained
 *   envace-shared-baseline    one baseline for both roles
 */
import { performance } from 'node:perf_hooks';
import { type AssignedGroup, advantageOptions, assignGroupAdvantages, hasRewardVariance } from '../advantages';
import { pgRow } from '../batch';
import type { RunContext, Stage } from '../context';
import { renderMemory } from '../memory-text';
import { buildMemory } from '../memory';
import { Rng, deriveSeed, epochSlice } from '../../random';
import { traceOf } from '../test-time';
import { type RolloutMode, type RolloutResult, runRollouts, toNewRollout } from '../rollout';
import { rolloutMetrics } from './metrics';

export type RoleGrpoVariant = 'grpo-real' | 'envace' | 'envace-no-rehearse-loss' | 'envace-shared-baseline';

/** Private rehearsals per memory-aware task (the contract has no knob for it yet). */
export const MEMORY_AWARE_REHEARSALS = 2;

/**
 * K rollouts of each of the step's tasks, in the order the data cursor gives. Memory-aware training:
 * a `testTime.memoryAwareFraction` of the tasks first get private rehearsals (not trained, no env
 * calls), and their K rollouts start with the resulting memory block.
 */
export async function sampleGroups(ctx: RunContext, step: number, mode: RolloutMode): Promise<RolloutResult[][]> {
  const { seed, rollout, testTime } = ctx.config;
  const { k, tasksPerStep } = rollout;
  const tasks = epochSlice(ctx.rlTasks, seed, (step - 1) * tasksPerStep, tasksPerStep);
  const rng = new Rng(deriveSeed(seed, 'memory-aware', step));
  const aware = tasks.map(() => rng.next() < testTime.memoryAwareFraction);
  const memories = new Map<number, string>();
  const rehearsed = tasks.flatMap((task, i) => (aware[i] ? Array.from({ length: MEMORY_AWARE_REHEARSALS }, () => ({ task, i })) : []));
  if (rehearsed.length) {
    const rs = await runRollouts(
      ctx.policy,
      ctx.env,
      rehearsed.map(({ task }) => ({ task, mode: 'rehearse' as const })),
      ctx.settings,
      seed,
      `step:${step}:memory`,
    );
    tasks.forEach((_, i) => {
      if (aware[i]) memories.set(i, renderMemory(buildMemory(rs.filter((_, j) => rehearsed[j].i === i).map(traceOf))));
    });
  }
  const requests = tasks.flatMap((task, i) =>
    Array.from({ length: k }, () => ({ task, mode, memory: memories.get(i), reference: referenceFor(ctx, task.id) })),
  );
  const flat = await runRollouts(ctx.policy, ctx.env, requests, ctx.settings, seed, `step:${step}`);
  ctx.noteEnvFailures(`step ${step}`, flat);
  return tasks.map((_, i) => flat.slice(i * k, (i + 1) * k));
}

/** Few-shot reference pairs for the simulator prompt (none for the inline prompt). */
function referenceFor(ctx: RunContext, taskId: string) {
  return ctx.config.rollout.rehearsePrompt === 'simulator' ? ctx.referenceOf(taskId) : undefined;
}

/** `redraws` (groups replaced this step), logged when dynamic sampling is on. */
export function redrawMetric(c: RunContext['config'], redraws: number): Record<string, number> {
  return c.rollout.dynamicSampling ? { redraws } : {};
}

export interface SampledGroups {
  groups: RolloutResult[][];
  /** Groups replaced by dynamic sampling this step. */
  redraws: number;
  /** The rollouts of the replaced groups: not trained on, but their env calls and tokens were spent. */
  discarded: RolloutResult[];
}

/**
 * sampleGroups plus dynamic sampling (DAPO; `rollout.dynamicSampling`). A group whose rewards are
 * all equal has all-zero advantages: it teaches nothing. Each such group is set aside and K
 * rollouts of a fresh task take its place, at most `rollout.maxRedraws` times per group; a group
 * still without signal after that is trained as it is. A fresh task rather than the same one: a
 * task every rollout failed (or solved) will most likely do so again. One batched round per redraw;
 * tasks and seeds derive from (seed, step, round), so a resumed run replays the same redraws.
 * Redrawn groups start without a memory block (memory-aware training applies to the step's own tasks).
 */
export async function sampleGroupsWithSignal(ctx: RunContext, step: number, mode: RolloutMode): Promise<SampledGroups> {
  const groups = await sampleGroups(ctx, step, mode);
  const out: SampledGroups = { groups, redraws: 0, discarded: [] };
  const { seed, rollout } = ctx.config;
  // A group of one rollout never has reward variance: redrawing it would only burn the budget.
  if (!rollout.dynamicSampling || rollout.k < 2) return out;
  const used = new Set(groups.map((g) => g[0].task.id));
  for (let round = 1; round <= rollout.maxRedraws; round++) {
    const flat = groups.flatMap((g, i) => (hasRewardVariance(g.map((r) => r.reward)) ? [] : [i]));
    if (!flat.length) break;
    // Tasks not yet in this step first, in a seeded order; repeats only once those run out.
    const order = new Rng(deriveSeed(seed, 'redraw', step, round)).shuffle(ctx.rlTasks);
    const fresh = [...order.filter((t) => !used.has(t.id)), ...order.filter((t) => used.has(t.id))];
    const tasks = flat.map((_, j) => fresh[j % fresh.length]);
    tasks.forEach((t) => used.add(t.id));
    const requests = tasks.flatMap((task) => Array.from({ length: rollout.k }, () => ({ task, mode, reference: referenceFor(ctx, task.id) })));
    const redrawn = await runRollouts(ctx.policy, ctx.env, requests, ctx.settings, seed, `step:${step}:redraw:${round}`);
    ctx.noteEnvFailures(`step ${step}, redraw ${round}`, redrawn);
    flat.forEach((g, j) => {
      out.discarded.push(...groups[g]);
      groups[g] = redrawn.slice(j * rollout.k, (j + 1) * rollout.k);
    });
    out.redraws += flat.length;
  }
  return out;
}

export async function runRoleGrpoStage(ctx: RunContext, stage: Stage, startStep: number, variant: RoleGrpoVariant): Promise<boolean> {
  await ctx.beginRlStage(stage, startStep);
  const c = ctx.config;
  const mode: RolloutMode = variant === 'grpo-real' ? 'real' : c.rollout.pReal > 0 ? 'mixed' : 'rehearse';
  const trainedRoles = variant === 'grpo-real' || variant === 'envace-no-rehearse-loss' ? (['act'] as const) : (['act', 'rehearse'] as const);
  const advOpts = advantageOptions(c, variant === 'envace-shared-baseline');
  for (let step = startStep; step <= stage.last; step++) {
    const t0 = performance.now();
    // 1. rollouts (groups without signal redrawn when dynamic sampling is on)
    const { groups, redraws, discarded } = await sampleGroupsWithSignal(ctx, step, mode);
    const rolloutMs = performance.now() - t0;
    // 2–3. rewards (checklist scores, set by the rollouts) and role-wise advantages per task group
    const logged: AssignedGroup[] = groups.map((group) => assignGroupAdvantages(group, trainedRoles, advOpts));
    // 4. update: token-level clipped surrogate over the generated tokens of the trained roles
    const results = groups.flat();
    const rows = results.flatMap((r) => [pgRow(r.segments), ...((trainedRoles as readonly string[]).includes('rehearse') ? r.simulatorRows.map(pgRow) : [])]);
    const stats = await ctx.rlUpdate(rows, step, ctx.pgObjective(), c.optim.ppoEpochs);
    // 5. log, checkpoint, stop
    const metrics = { ...ctx.trainMetrics(stats, performance.now() - t0), ...rolloutMetrics(results, logged, rolloutMs, discarded), ...redrawMetric(c, redraws) };
    const rollouts = results.map((r) => toNewRollout(r, { runId: ctx.io.runId ?? null, step }));
    if (!(await ctx.finishStep(step, stage, metrics, rollouts))) return false;
  }
  return true;
}
