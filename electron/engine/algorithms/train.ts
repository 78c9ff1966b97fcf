/**
 * `runTraining`: one run = one or more stages (e.g. SFT then EnvACE) over one policy, dispatched by
 * `config.algo`. Runs inside the compute worker; talks to the outside only through `io` callbacks.
 * Exact resume: the checkpoint holds weights, AdamW moments and the optimiser step; the data order
 * and every sampling seed are functions of (seed, global step), so a resumed run repeats nothing and
 * skips nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunConfig as RunConfigSchema, stagePlan, stagePlanProblem, type RunConfig } from '../../contract';
import { getEnv } from '../envs/registry';
import type { ToolEnv } from '../envs/types';
import { REFERENCE_DIR, RUN_STATE_FILE, RunContext, type Stage, type TrainingIO } from './context';
import { demoCorpus, runDemonstrations } from './demos';
import { systemText } from './layout';
import { envOptions } from './env-options';
import { AlgorithmError } from './errors';
import { runPawStage } from './loops/paw';
import { runRoleGrpoStage } from './loops/role-grpo';
import { runRwmlStage } from './loops/rwml';
import { runSftStage } from './loops/sft';
import { NativePolicy, type PolicyOptions, type PretrainedModel, runSessionOptions, withContext } from './policy';
import { loraOf } from './lora-config';
import { loadModel } from '../models/registry';
import { rlSamplingProblem } from '../runs/preflight';
import { fixedLayoutTranscripts, layoutCurriculumProblem, usesLayoutCurriculum } from './layout-curriculum';
import type { RolloutSettings } from './rollout';

export type { StepResult, TrainingIO } from './context';
export { envOptions } from './env-options';

/**
 * The stages of a run and the global steps each owns. Any RL method with `sft.steps` > 0 starts
 * with that SFT warm start, so methods compared on one budget share the same starting point. The
 * layout is the contract's (the Dashboard shows the same stages); the refusals are the engine's.
 */
export function planStages(c: RunConfig): Stage[] {
  const problem = stagePlanProblem(c);
  if (problem) throw new AlgorithmError(problem);
  return stagePlan(c);
}

/** An imported model from the data home's models folder, as the starting policy's weights. */
function pretrained(io: TrainingIO, name: string): PretrainedModel {
  if (!io.modelsDir) throw new AlgorithmError(`model "${name}" is imported, but this engine was started without a models folder`);
  try {
    return loadModel(io.modelsDir, name);
  } catch (e) {
    throw new AlgorithmError(`cannot load imported model "${name}": ${(e as Error).message}`);
  }
}

export function rolloutSettings(c: RunConfig): RolloutSettings {
  const r = c.rollout;
  return {
    maxTurns: r.maxTurns,
    maxTokensPerTurn: r.maxTokensPerTurn,
    maxObservationTokens: r.maxObservationTokens,
    temperature: r.temperature,
    topP: r.topP,
    pReal: r.pReal,
    toolSchemas: r.toolSchemas,
    rehearsePrompt: r.rehearsePrompt,
    callBudget: r.callBudget,
    memoryTokens: c.testTime.memoryTokens,
  };
}

const tasksOf = (env: ToolEnv, split: 'train' | 'heldout') => env.tasks(split).map((t) => env.task(t.id));

/** Where to start: a fresh run, this run's checkpoint at a step, or another run's checkpoint folder. */
function resumePoint(io: TrainingIO): { dir: string; step: number } | null {
  const dir = io.resumeFromDir ?? (io.resumeFromStep !== undefined ? join(io.runDir, 'checkpoints', `step-${io.resumeFromStep}`) : undefined);
  if (!dir) return null;
  const file = join(dir, RUN_STATE_FILE);
  if (!existsSync(file)) throw new AlgorithmError(`no checkpoint to resume from at ${dir}`);
  const state = JSON.parse(readFileSync(file, 'utf8')) as { step?: unknown };
  if (!Number.isInteger(state.step)) throw new AlgorithmError(`checkpoint ${dir} has no step in ${RUN_STATE_FILE}`);
  return { dir, step: state.step as number };
}

export async function runTraining(input: RunConfig, io: TrainingIO): Promise<{ finalStep: number }> {
  const parsed = RunConfigSchema.safeParse(input);
  if (!parsed.success)
    throw new AlgorithmError(`invalid run config: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const config = parsed.data;
  // Pre-flight refuses these too; a run started without it (CLI, an older stored config) must not train biased.
  const sampling = rlSamplingProblem(config);
  if (sampling) throw new AlgorithmError(sampling);
  const curriculum = layoutCurriculumProblem(config);
  if (curriculum) throw new AlgorithmError(curriculum);
  const stages = planStages(config);
  const total = stages[stages.length - 1].last;
  const env = await getEnv(config.env, envOptions(config));
  const trainTasks = tasksOf(env, 'train');
  const heldoutTasks = tasksOf(env, 'heldout');
  if (!trainTasks.length) throw new AlgorithmError(`environment '${config.env}' has no training tasks`);
  const from = resumePoint(io);
  io.onProgress(0, 'setup');
  const imported = 'imported' in config.model ? config.model.imported : undefined;
  // Adapters on a frozen random model would learn nothing worth having.
  if (config.contextTokens !== undefined && !imported)
    throw new AlgorithmError('contextTokens applies to imported models; a preset keeps its own context');
  if (loraOf(config) && !imported) throw new AlgorithmError('LoRA adapters train on a pretrained model: pick an imported model, or set lora.rank to 0');
  // A fresh preset run trains its tokenizer on the demonstrations it will use (file or expert); an
  // env with neither gives its tool schemas and instructions. A resumed run has its saved tokenizer,
  // an imported model its own.
  // A run started from another run's checkpoint (config.initFrom) takes its weights and tokenizer.
  const init = from ? undefined : io.initFromDir;
  const trainsTokenizer = !from && !imported && !init;
  const hasDemos = config.sft.demonstrations === 'file' || env.expert !== undefined;
  const twice = usesLayoutCurriculum(config) ? ', in the varied and the fixed layout' : '';
  if (trainsTokenizer && hasDemos) io.onProgress(0, `setup: recording ${config.sft.demonstrations === 'file' ? 'the demonstrations file' : `${trainTasks.length} expert demonstrations${twice}`}`);
  const transcripts =
    trainsTokenizer && hasDemos ? await runDemonstrations(env, trainTasks, config.sft, config.rollout.toolSchemas, config.seed) : undefined;
  // The layout curriculum's fixed-template demonstrations: the tokenizer learns from both renderings.
  const fixedTranscripts = transcripts && usesLayoutCurriculum(config) ? await fixedLayoutTranscripts(config, trainTasks, config.rollout.toolSchemas) : undefined;
  io.onProgress(0, from ? 'setup: loading the checkpoint' : trainsTokenizer ? 'setup: training the tokenizer and building the model' : 'setup: loading the model');
  const options: PolicyOptions = {
    seed: config.seed,
    optimizer: {
      lr: config.optim.lr,
      warmupSteps: config.optim.warmupSteps,
      minLrRatio: config.optim.minLrRatio,
      weightDecay: config.optim.weightDecay,
      maxGradNorm: config.optim.gradClip,
      totalSteps: total * config.optim.ppoEpochs,
    },
    session: runSessionOptions(config, (m) => io.onLog('warn', m)),
    knobs: {
      clipLow: config.loss.clipLow,
      clipHigh: config.loss.clipHigh,
      dualClip: config.loss.dualClip,
      klBeta: config.loss.klBeta,
      cmaeRho: config.paw.rho,
    },
  };
  let policy: NativePolicy;
  if (from) policy = await NativePolicy.fromCheckpoint(from.dir, options);
  else if (init) {
    // Its weights and AdamW moments; the first stage zeroes the moments or keeps them by its own
    // optim.stages.*.resetMoments (RunContext.beginStage), as any later stage of a run does.
    policy = await NativePolicy.fromCheckpoint(init, options);
    io.onLog('info', `initialised from ${init}`);
  } else if (imported) policy = await NativePolicy.fromPretrained(withContext(pretrained(io, imported), config.contextTokens), options, loraOf(config));
  else {
    const corpus = transcripts ? demoCorpus([...transcripts, ...(fixedTranscripts ?? [])]) : [systemText(env.description, env.tools(), 'full'), ...trainTasks.map((t) => t.instruction)];
    policy = await NativePolicy.create({ ...options, preset: (config.model as { preset: 'nano' | 'tiny' | 'small' }).preset, corpus, tokenizerShape: { wordStarts: config.tokenizerWordStarts, digits: config.tokenizerDigits } });
  }
  const lora = policy.config.lora;
  const modelName = `${imported ? `imported model ${imported}` : (config.model as { preset: string }).preset}${lora ? ` with rank-${lora.rank} LoRA adapters on ${lora.targets.join(', ')}` : ''}`;
  io.onLog('info', `model: ${modelName} (${policy.config.vocabSize}-token vocabulary, context ${policy.maxSeqLen}) on ${policy.provider}`);
  try {
    if (from) {
      if (existsSync(join(from.dir, REFERENCE_DIR))) await policy.loadReference(join(from.dir, REFERENCE_DIR));
      io.onLog('info', `resumed from ${from.dir} at step ${from.step}`);
    }
    const ctx = new RunContext(config, env, trainTasks, heldoutTasks, policy, rolloutSettings(config), io, stages);
    ctx.demoCache = transcripts;
    ctx.fixedLayoutDemoCache = fixedTranscripts;
    let step = from ? from.step : 0;
    ctx.lastStep = step;
    if (!from) await ctx.evaluateBeforeTraining();
    if (io.signal.aborted) return { finalStep: step };
    for (const stage of stages) {
      if (stage.last <= step) continue;
      const start = Math.max(stage.first, step + 1);
      io.onLog('info', `stage ${stage.algo}: steps ${start}–${stage.last}`);
      io.onProgress((start - 1) / total, `${stage.algo}: step ${start} (the first step of a stage builds its training graph)`);
      ctx.beginStage(stage, start);
      const go = await runStage(ctx, stage, start);
      step = go ? stage.last : step;
      if (!go) return { finalStep: ctx.lastStep };
    }
    return { finalStep: total };
  } finally {
    await policy.release();
  }
}

function runStage(ctx: RunContext, stage: Stage, start: number): Promise<boolean> {
  switch (stage.algo) {
    case 'sft':
      return runSftStage(ctx, stage, start);
    case 'paw':
      return runPawStage(ctx, stage, start);
    case 'rwml':
      return runRwmlStage(ctx, stage, start);
    default:
      return runRoleGrpoStage(ctx, stage, start, stage.algo);
  }
}
