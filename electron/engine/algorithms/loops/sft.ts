/**
 * SFT warm start: cross-entropy on expert demonstrations — on the act tokens, and (knob
 * `sft.worldModelLoss`) on the real observation tokens too, so the policy also learns the world it
 * will later rehearse.
 */
import { performance } from 'node:perf_hooks';
import type { RunConfig } from '../../../contract';
import { microBatches } from '../batch';
import type { RunContext, Stage } from '../context';
import { type DemoTranscript, type Demonstration, fitDemonstration, runDemonstrations } from '../demos';
import { fixedLayoutTranscripts, usesLayoutCurriculum, variedShare, withLayoutCurriculum } from '../layout-curriculum';
import { AlgorithmError } from '../errors';
import { flatten, givenMask, systemTextFor } from '../layout';
import type { Task, ToolSpec } from '../../envs/types';
import { deriveSeed, epochSlice } from '../../random';
import { type SftMemoryInputs, withRehearsalMemories } from '../sft-memory';

/** The system block as the policy writes it: an imported chat model's tools in its own template's form. */
function systemOf(ctx: RunContext) {
  return (description: string, tools: readonly ToolSpec[]) => systemTextFor(ctx.policy.specials, description, tools, ctx.config.rollout.toolSchemas);
}

/** The transcripts that fit the policy's context, laid out as demonstrations, and why the others did not. */
function fitting(ctx: RunContext, transcripts: readonly DemoTranscript[]): { demos: Demonstration[]; dropped: string[] } {
  const demos: Demonstration[] = [];
  const dropped: string[] = [];
  for (const t of transcripts) {
    const fit = fitDemonstration(ctx.policy.tokenizer, ctx.policy.specials, t, ctx.config.rollout.maxObservationTokens, ctx.policy.maxSeqLen);
    if ('demo' in fit) demos.push(fit.demo);
    else dropped.push(`${t.taskId}: ${fit.dropped}`);
  }
  return { demos, dropped };
}

/**
 * Which training tasks the SFT stages record demonstrations of. A pretrained model brings its own
 * tokenizer, so nothing but SFT reads the transcripts: when its stages draw fewer rows than there
 * are tasks, tasks are recorded in a seeded order until as many demonstrations fit the context as
 * there are rows (bfcl's 2,800 training tasks took 22 min to record for the imported recipe's 120
 * rows). `want` null: every task, in order — a from-scratch run records them all for its tokenizer
 * first, and the simulator rehearse prompt reads any task's demonstration.
 */
export function demonstrationPlan(config: RunConfig, trainTasks: readonly Task[], stages: readonly Pick<Stage, 'algo' | 'first' | 'last'>[]): { order: readonly Task[]; want: number | null } {
  if (!('imported' in config.model) || config.sft.demonstrations !== 'expert' || config.rollout.rehearsePrompt === 'simulator') return { order: trainTasks, want: null };
  const steps = stages.filter((s) => s.algo === 'sft').reduce((n, s) => n + s.last - s.first + 1, 0);
  const rows = steps * config.rollout.tasksPerStep * config.rollout.k;
  if (rows >= trainTasks.length) return { order: trainTasks, want: null };
  return { order: epochSlice(trainTasks, deriveSeed(config.seed, 'demonstration-tasks'), 0, trainTasks.length), want: rows };
}

/** The run's transcripts: every task's, or (a plan with `want`) those recorded in its order until `want` fit. */
async function recordTranscripts(ctx: RunContext): Promise<DemoTranscript[]> {
  const c = ctx.config;
  const { order, want } = demonstrationPlan(c, ctx.trainTasks, ctx.stages);
  if (want === null) return runDemonstrations(ctx.env, order, c.sft, systemOf(ctx), c.seed);
  const out: DemoTranscript[] = [];
  let fitted = 0;
  for (let next = 0; next < order.length && fitted < want; ) {
    const batch = order.slice(next, next + want - fitted);
    next += batch.length;
    const transcripts = await runDemonstrations(ctx.env, batch, c.sft, systemOf(ctx), c.seed);
    out.push(...transcripts);
    fitted += fitting(ctx, transcripts).demos.length;
  }
  ctx.io.onLog('info', `sft: recorded ${out.length} of ${order.length} training tasks, until ${fitted} demonstrations fit (${want} rows to train)`);
  return out;
}

export async function demonstrations(ctx: RunContext): Promise<Demonstration[]> {
  ctx.demoCache ??= await recordTranscripts(ctx);
  const { demos, dropped } = fitting(ctx, ctx.demoCache);
  // Said once per run (the cache makes later stages silent): SFT on a few survivors teaches little.
  if (dropped.length && !ctx.demoDropsLogged) {
    ctx.demoDropsLogged = true;
    ctx.io.onLog('warn', `sft: dropped ${dropped.length} of ${ctx.demoCache.length} demonstrations:\n${dropped.slice(0, 20).map((d) => `  ${d}`).join('\n')}${dropped.length > 20 ? `\n  … and ${dropped.length - 20} more` : ''}`);
  }
  if (!demos.length) {
    const failed = ctx.demoCache.filter((t) => t.envFailure !== undefined);
    if (failed.length > 0 && failed.length === ctx.demoCache.length)
      throw new AlgorithmError(`no demonstration of ${ctx.env.id} to learn from: all ${failed.length} failed in the environment while they were recorded (${failed[0].taskId}: ${failed[0].envFailure})`);
    throw new AlgorithmError(`no expert demonstration of ${ctx.env.id} fits the model's context of ${ctx.policy.maxSeqLen} tokens`);
  }
  return demos;
}

/** The tokens an SFT step learns: the act tokens, and the observations once `worldModelLossFrom` is reached. */
export function sftLossRoles(sft: Pick<RunConfig['sft'], 'worldModelLoss' | 'worldModelLossFrom'>, step: number): ReadonlyArray<'act' | 'env'> {
  return sft.worldModelLoss && step >= sft.worldModelLossFrom ? ['act', 'env'] : ['act'];
}

export async function runSftStage(ctx: RunContext, stage: Stage, startStep: number): Promise<boolean> {
  const c = ctx.config;
  const demos = await demonstrations(ctx);
  const batchSize = c.rollout.tasksPerStep * c.rollout.k;
  const loss = !c.sft.worldModelLoss ? 'act tokens' : c.sft.worldModelLossFrom > 1 ? `act tokens, + env tokens from step ${c.sft.worldModelLossFrom}` : 'act + env tokens';
  ctx.io.onLog('info', `sft: ${demos.length} ${c.sft.demonstrations} demonstrations, ${batchSize} per step, loss on ${loss}`);
  const memory = c.sft.memoryFraction > 0 ? memoryInputs(ctx) : null;
  if (memory) ctx.io.onLog('info', `sft: ${Math.round(c.sft.memoryFraction * 100)} % of the rows behind a rehearsal memory from step ${c.sft.memoryFrom}`);
  const fixedLayout = await fixedLayoutDemonstrations(ctx, startStep);
  for (let step = startStep; step <= stage.last; step++) {
    const t0 = performance.now();
    // The data cursor is a function of the global step, so a resumed run continues the same order.
    const drawn = epochSlice(demos, c.seed, (step - 1) * batchSize, batchSize);
    const curriculum = fixedLayout ? withLayoutCurriculum(c.sft, c.seed, step, drawn, fixedLayout) : null;
    const plain = curriculum?.batch ?? drawn;
    const aware = memory ? await withRehearsalMemories(memory, step, plain) : null;
    const batch = aware?.batch ?? plain;
    const roles = sftLossRoles(c.sft, step);
    const rows = batch.map((d) => ({ tokens: flatten(d.segments), sftMask: givenMask(d.segments, roles) }));
    const stats = await ctx.policy.trainStep(microBatches(rows, c.optim.microBatchTokens), { sft: { aggregation: c.loss.aggregation } });
    const ms = performance.now() - t0;
    const memoryMetrics: Record<string, number> = aware ? { sft_memories: aware.memories, sft_memory_tokens: aware.memories ? aware.memoryTokens / aware.memories : 0 } : {};
    const layoutMetrics: Record<string, number> = curriculum ? { sft_fixed_layout_rows: curriculum.fixedRows } : {};
    const metrics = { ...ctx.trainMetrics([stats], ms), ...memoryMetrics, ...layoutMetrics, tokens_per_s: (stats.tokens / ms) * 1000, env_calls: 0 };
    if (!(await ctx.finishStep(step, stage, metrics, []))) return false;
  }
  return true;
}

/**
 * The layout curriculum's fixed-template demonstrations by task id, or null when the run does not
 * use it (or is past it: a resumed run records nothing it will not train on).
 */
async function fixedLayoutDemonstrations(ctx: RunContext, startStep: number): Promise<Map<string, Demonstration> | null> {
  const c = ctx.config;
  // runTraining has refused a config the curriculum cannot apply to (layoutCurriculumProblem).
  if (!usesLayoutCurriculum(c) || variedShare(c.sft, startStep) >= 1) return null;
  ctx.fixedLayoutDemoCache ??= await fixedLayoutTranscripts(c, ctx.trainTasks, systemOf(ctx));
  const { demos, dropped } = fitting(ctx, ctx.fixedLayoutDemoCache);
  const ramp = c.sft.layoutRampSteps ? `, then varied rows rise to all of them by step ${c.sft.fixedLayoutSteps + c.sft.layoutRampSteps}` : ', varied from the next';
  ctx.io.onLog('info', `sft: layout curriculum: steps 1–${c.sft.fixedLayoutSteps} in the fixed template (${demos.length} demonstrations${dropped.length ? `, ${dropped.length} too long` : ''})${ramp}`);
  return new Map(demos.map((d) => [d.taskId, d]));
}

/** What memory-aware SFT rehearses with: the run's policy, env and rollout settings, and each demonstration's transcript and task. */
function memoryInputs(ctx: RunContext): SftMemoryInputs {
  const c = ctx.config;
  return {
    policy: ctx.policy,
    env: ctx.env,
    settings: ctx.settings,
    sft: c.sft,
    seed: c.seed,
    transcripts: new Map((ctx.demoCache ?? []).map((t) => [t.taskId, t])),
    tasks: new Map(ctx.trainTasks.map((t) => [t.id, t])),
  };
}
