/**
 * Role-wise GRPO (EnvACE) and its baselines, one loop:
 *   grpo-real                 real env, act tokens trained (the environment-scaling baseline)
 *   envace                    rehearsal rollouts; act and rehearse outputs trained, one baseline per role
 *   envace-no-rehearse-loss   rehearsed observations used but not trained
 *   envace-shared-baseline    one baseline for both roles
 */
import { performance } from 'node:perf_hooks';
import type { StepStats } from '../../../../native-models';
import { type GroupOutput, roleAdvantages } from '../advantages';
import { microBatches, pgRow } from '../batch';
import type { RunContext, Stage } from '../context';
import { renderMemory } from '../../memory-text';
import { buildMemory } from '../memory';
import { Rng, deriveSeed, epochSlice } from '../random';
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
  const tasks = epochSlice(ctx.trainTasks, seed, (step - 1) * tasksPerStep, tasksPerStep);
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
  const reference = (taskId: string) => (rollout.rehearsePrompt === 'simulator' ? ctx.referenceOf(taskId) : undefined);
  const requests = tasks.flatMap((task, i) =>
    Array.from({ length: k }, () => ({ task, mode, memory: memories.get(i), reference: reference(task.id) })),
  );
  const flat = await runRollouts(ctx.policy, ctx.env, requests, ctx.settings, seed, `step:${step}`);
  return tasks.map((_, i) => flat.slice(i * k, (i + 1) * k));
}

export async function runRoleGrpoStage(ctx: RunContext, stage: Stage, startStep: number, variant: RoleGrpoVariant): Promise<boolean> {
  await ctx.beginRlStage(stage, startStep);
  const c = ctx.config;
  const mode: RolloutMode = variant === 'grpo-real' ? 'real' : c.rollout.pReal > 0 ? 'mixed' : 'rehearse';
  const trainedRoles = variant === 'grpo-real' || variant === 'envace-no-rehearse-loss' ? ['act'] : ['act', 'rehearse'];
  const advOpts = { baseline: c.loss.baseline, shared: variant === 'envace-shared-baseline', stdNormalize: c.loss.stdNormalize };
  for (let step = startStep; step <= stage.last; step++) {
    const t0 = performance.now();
    // 1. rollouts
    const groups = await sampleGroups(ctx, step, mode);
    const rolloutMs = performance.now() - t0;
    // 2–3. rewards (checklist scores, set by the rollouts) and role-wise advantages per task group
    const logged: Array<{ rewards: number[]; outputs: GroupOutput[] }> = [];
    for (const group of groups) {
      const rewards = group.map((r) => r.reward);
      // Generated segments of the trained roles: in the actor's stream, and (simulator prompt) the
      // answer segment of each simulator row.
      const generated = (r: RolloutResult) => [...r.segments, ...r.simulatorRows.map((row) => row[row.length - 1])];
      const refs = group.flatMap((r, i) =>
        generated(r)
          .filter((s) => s.logprobs.length && trainedRoles.includes(s.role))
          .map((segment) => ({ segment, out: { rollout: i, role: segment.role as GroupOutput['role'] } })),
      );
      const adv = roleAdvantages(
        rewards,
        refs.map((x) => x.out),
        advOpts,
      );
      refs.forEach((x, j) => (x.segment.advantage = adv[j]));
      logged.push({ rewards, outputs: refs.map((x) => x.out) });
    }
    // 4. update: token-level clipped surrogate over the generated tokens of the trained roles
    const results = groups.flat();
    const rows = results.flatMap((r) => [pgRow(r.segments), ...(trainedRoles.includes('rehearse') ? r.simulatorRows.map(pgRow) : [])]);
    const batches = microBatches(await ctx.withReference(rows), c.optim.microBatchTokens);
    const stats: StepStats[] = [];
    for (let epoch = 0; epoch < c.optim.ppoEpochs; epoch++) stats.push(await ctx.policy.trainStep(batches, ctx.pgObjective()));
    // 5. log, checkpoint, stop
    const metrics = { ...ctx.trainMetrics(stats, performance.now() - t0), ...rolloutMetrics(results, logged, rolloutMs) };
    const rollouts = results.map((r) => toNewRollout(r, { runId: ctx.io.runId ?? null, step }));
    if (!(await ctx.finishStep(step, stage, metrics, rollouts))) return false;
  }
  return true;
}
