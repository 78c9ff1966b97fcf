/**
 * What every training loop shares: the resolved config, env and tasks, the policy, rollout settings,
 * and `finishStep` — the one place that reports a step, evaluates, writes checkpoints and honours
 * cancellation, so each loop reads as rollout → rewards → advantages → trainStep → finishStep.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfig } from '../../contract';
import { writeDirAtomicSync } from '../../../native-models/io/atomic';
import type { ObjectiveConfig, StepStats } from '../../../native-models';
import type { NewRollout } from '../store/rollouts';
import type { Task, ToolEnv } from '../envs/types';
import { type TrainRow, microBatches, rowsThatFit } from './batch';
import type { DemoTranscript } from './demos';
import { evaluatePolicy } from './evaluate';
import type { NativePolicy } from './policy';
import { type RolloutResult, type RolloutSettings, promptFits } from './rollout';
import { envFailureReport } from './loops/metrics';
import { type Stage, stageKey, stageLearningRate, stageResetsMoments } from './stage-schedule';
import type { ReferenceStep } from './simulator';

export type LogLevel = 'info' | 'warn' | 'error';

export interface StepResult {
  step: number;
  metrics: Record<string, number>;
  rollouts: NewRollout[];
  checkpoint?: { step: number; path: string };
}

export interface TrainingIO {
  runDir: string;
  /** The data home's imported models (runs whose model is `{ imported }` start from one). */
  modelsDir?: string;
  /** Continue this run from its checkpoint at this step. */
  resumeFromStep?: number;
  /** Start from this checkpoint folder (a fork from another run); steps continue from its step. */
  resumeFromDir?: string;
  /** A fresh run's starting weights and tokenizer (config.initFrom, resolved by the engine); ignored when resuming. */
  initFromDir?: string;
  signal: AbortSignal;
  onStep(result: StepResult): void;
  onLog(level: LogLevel, message: string): void;
  onProgress(fraction: number, phase: string): void;
  /** Run id written into the rollouts (the lead's store fills it when null). */
  runId?: string | null;
}

// Defined with its schedule (stage-schedule.ts), which this module imports and not the other way round.
export type { Stage };

export const RUN_STATE_FILE = 'run_state.json';
export const MODEL_DIR = 'model';
export const TOKENIZER_DIR = 'tokenizer';
export const REFERENCE_DIR = 'reference';

export class RunContext {
  private demos?: DemoTranscript[];
  private fixedLayoutDemos?: DemoTranscript[];
  private rlTaskList?: readonly Task[];
  /** Whether SFT has said which demonstrations it dropped (once a run; each SFT stage re-reads the cache). */
  demoDropsLogged = false;
  /** Env calls spent gathering demonstrations, not yet reported (data gathering, apart from training's env_calls). */
  private gatherEnvCalls = 0;
  /** The last step reported through `onStep`. */
  lastStep = 0;

  constructor(
    readonly config: RunConfig,
    readonly env: ToolEnv,
    readonly trainTasks: readonly Task[],
    readonly heldoutTasks: readonly Task[],
    readonly policy: NativePolicy,
    readonly settings: RolloutSettings,
    readonly io: TrainingIO,
    readonly stages: readonly Stage[],
  ) {}

  get totalSteps(): number {
    return this.stages[this.stages.length - 1].last;
  }

  /**
   * Before `stage` runs from `start`: its own learning rate, and (only at its true first step, so a
   * resume mid-stage keeps the saved moments) zeroed moments when the stage asks for them. A run
   * from another run's checkpoint (initFrom) has moments before its first stage, so that one may reset too.
   */
  beginStage(stage: Stage, start: number): void {
    if (start === stage.first && stageResetsMoments(this.config, stage, stage === this.stages[0] && !this.config.initFrom)) {
      this.policy.resetMoments();
      this.io.onLog('info', `stage ${stage.algo}: AdamW moments reset (optim.stages.${stageKey(stage.algo)}.resetMoments)`);
    }
    this.policy.setLearningRate(stageLearningRate(this.config, stage, start));
  }

  /** The task's reference trajectory as real call/result pairs (from the run's demonstrations). */
  referenceOf(taskId: string): ReferenceStep[] {
    // A demonstration whose environment failed shows our error text, not the world's: no reference.
    const t = this.demoCache?.find((d) => d.taskId === taskId && d.envFailure === undefined);
    return (t?.steps ?? []).flatMap((s) => (s.observation === null ? [] : [{ action: s.actionText, observation: s.observation }]));
  }

  get klEnabled(): boolean {
    return this.config.loss.klBeta > 0;
  }

  /**
   * The clipped-surrogate objective with the run's aggregation, plus KL when klBeta > 0. π_θ is scored
   * at the rollout temperature, the distribution the recorded π_old log-probs come from.
   */
  pgObjective(extra: Partial<ObjectiveConfig> = {}): ObjectiveConfig {
    const kl = this.klEnabled ? { kl: this.config.loss.klEstimator } : {};
    return { pg: { aggregation: this.config.loss.aggregation, ...kl, temperature: this.config.rollout.temperature }, ...extra };
  }

  /**
   * The training tasks RL draws from: those whose prompt leaves room for a first act. A rollout of
   * any other ends before it and trains nothing (an imported model's bfcl tasks whose schemas pass
   * its 1,024 tokens: a quarter of them); all of them if none fits, so the steps say why they skip.
   */
  get rlTasks(): readonly Task[] {
    if (!this.rlTaskList) {
      const fit = this.trainTasks.filter((t) => promptFits(this.policy, this.env, t, this.settings));
      if (fit.length < this.trainTasks.length && fit.length > 0)
        this.io.onLog('info', `rl: ${this.trainTasks.length - fit.length} of ${this.trainTasks.length} training tasks have a prompt longer than the context of ${this.policy.maxSeqLen} tokens; RL draws from the other ${fit.length}`);
      this.rlTaskList = fit.length ? fit : this.trainTasks;
    }
    return this.rlTaskList;
  }

  /** An RL stage's KL reference is the policy as the stage starts (kept across a resume). */
  async beginRlStage(stage: Stage, startStep: number): Promise<void> {
    if (this.klEnabled && (startStep === stage.first || !this.policy.hasReference)) await this.policy.freezeReference();
  }

  /** Adds the reference log-probs the KL term needs (no-op when KL is off). */
  async withReference(rows: TrainRow[]): Promise<TrainRow[]> {
    if (!this.klEnabled) return rows;
    const ref = await this.policy.referenceLogprobs(rows.map((r) => r.tokens));
    return rows.map((r, i) => ({ ...r, refLogprobs: ref[i] }));
  }

  /**
   * An RL step's update: `epochs` trainer steps over the rows that fit the context. None when no row
   * fits — each rollout's prompt alone was longer than the context, so it ended before its first act
   * (an imported model's bfcl tasks with long schemas) — and the step is reported without one, with a
   * warning, instead of failing the run.
   */
  async rlUpdate(rows: readonly TrainRow[], step: number, objective: ObjectiveConfig = this.pgObjective(), epochs = 1): Promise<StepStats[]> {
    const fitting = rowsThatFit(rows, this.policy.maxSeqLen);
    if (!fitting.length) {
      this.io.onLog('warn', `step ${step}: none of its ${rows.length} rows fits the context of ${this.policy.maxSeqLen} tokens (each prompt alone is longer): no update this step`);
      return [];
    }
    const batches = microBatches(await this.withReference(fitting), this.config.optim.microBatchTokens);
    const stats: StepStats[] = [];
    for (let epoch = 0; epoch < epochs; epoch++) stats.push(await this.policy.trainStep(batches, objective));
    return stats;
  }

  /** Common per-step metrics of a trainer step (a step without an update: its wall time, 0 tokens trained). */
  trainMetrics(stats: StepStats[], wallMs: number): Record<string, number> {
    const last = stats.at(-1);
    if (!last) return { train_tokens: 0, step_ms: wallMs };
    const m: Record<string, number> = {
      loss: last.loss,
      lr: last.lr,
      grad_norm: last.gradNorm,
      entropy: last.entropyMean,
      train_tokens: last.tokens,
      step_ms: wallMs,
    };
    for (const [k, v] of Object.entries(last.terms)) m[`loss/${k}`] = v;
    if (last.clipFrac !== undefined) m.clip_frac = last.clipFrac;
    if (last.ratioMean !== undefined) m.ratio_mean = last.ratioMean;
    if (last.terms.kl !== undefined) m.kl = last.terms.kl;
    return m;
  }

  /** Report a finished step; evaluate and checkpoint when due. Returns false when the run must stop. */
  /** The run's demonstrations (expert replays or a file), recorded once per process. */
  get demoCache(): DemoTranscript[] | undefined {
    return this.demos;
  }

  set demoCache(transcripts: DemoTranscript[] | undefined) {
    this.demos = transcripts;
    this.countGathered(transcripts);
  }

  /** The same demonstrations in the fixed template, for the layout curriculum (layout-curriculum.ts); recorded once per process. */
  get fixedLayoutDemoCache(): DemoTranscript[] | undefined {
    return this.fixedLayoutDemos;
  }

  set fixedLayoutDemoCache(transcripts: DemoTranscript[] | undefined) {
    this.fixedLayoutDemos = transcripts;
    this.countGathered(transcripts);
  }

  /** Env calls spent recording `transcripts`, reported as gather_env_calls at the next step. */
  private countGathered(transcripts: readonly DemoTranscript[] | undefined): void {
    this.gatherEnvCalls += (transcripts ?? []).reduce((n, t) => n + t.envCalls, 0);
  }

  /**
   * Names in the run's log the episodes whose environment failed (a server that did not start, or
   * died): each fails that episode only, and the run goes on.
   */
  noteEnvFailures(where: string, results: readonly RolloutResult[]): void {
    const report = envFailureReport(where, results);
    if (report) this.io.onLog('warn', report);
  }

  /** Greedy success, score and invalid-action rate on the held-out tasks, and the episodes the environment failed, as `eval/*` metrics. */
  private async heldoutMetrics(step: number): Promise<Record<string, number>> {
    const ev = await evaluatePolicy(this.policy, this.env, this.heldoutTasks, { ...this.settings, temperature: 0 }, { seed: this.config.seed, label: `eval:${step}` });
    this.noteEnvFailures(`held-out evaluation at step ${step}`, ev.results);
    const envFailures = ev.results.filter((r) => r.envFailure !== null).length;
    return { 'eval/success': ev.success, 'eval/score': ev.score, 'eval/invalid_action_rate': ev.invalidActionRate, 'eval/env_failures': envFailures };
  }

  /**
   * A fresh run that evaluates periodically is evaluated once before its first step too, reported as
   * step 0 (no checkpoint, no rollouts): every held-out curve then starts from the untrained policy,
   * so "before → after" is read off one run (verl's `val_before_train`, which the export sets alike).
   */
  async evaluateBeforeTraining(): Promise<void> {
    if (this.config.evalEvery <= 0 || !this.heldoutTasks.length) return;
    this.io.onProgress(0, `evaluating the untrained policy on ${this.heldoutTasks.length} held-out tasks`);
    this.io.onStep({ step: 0, metrics: await this.heldoutMetrics(0), rollouts: [] });
  }

  async finishStep(step: number, stage: Stage, metrics: Record<string, number>, rollouts: NewRollout[]): Promise<boolean> {
    const c = this.config;
    // Gathering is counted once, on step 1: a resumed run replays the expert again to rebuild its
    // data, but that repeats the method's data cost rather than adding to it.
    if (step === 1) metrics.gather_env_calls = this.gatherEnvCalls;
    this.gatherEnvCalls = 0;
    if (step < stage.last) this.policy.setLearningRate(stageLearningRate(c, stage, step + 1));
    // Every evalEvery steps and at the run's last step, so the curve ends where the run ends (after RL too).
    if (c.evalEvery > 0 && (step % c.evalEvery === 0 || step === this.totalSteps)) Object.assign(metrics, await this.heldoutMetrics(step));
    const result: StepResult = { step, metrics, rollouts };
    if (step % c.checkpointEvery === 0 || step === this.totalSteps) result.checkpoint = { step, path: this.saveCheckpoint(step, stage) };
    this.io.onStep(result);
    this.lastStep = step;
    this.io.onProgress(step / this.totalSteps, stage.algo);
    return !this.io.signal.aborted;
  }

  /** `runDir/checkpoints/step-N/`: model weights + AdamW moments, tokenizer, run state; atomically. */
  saveCheckpoint(step: number, stage: Stage): string {
    const dir = join(this.io.runDir, 'checkpoints', `step-${step}`);
    writeDirAtomicSync(dir, (tmp) => {
      this.policy.save(join(tmp, MODEL_DIR));
      if (this.policy.hasReference) this.policy.saveReference(join(tmp, REFERENCE_DIR));
      mkdirSync(join(tmp, TOKENIZER_DIR), { recursive: true });
      this.policy.tokenizer.save(join(tmp, TOKENIZER_DIR));
      // The data cursor and every sampling seed derive from (seed, step): this is all a resume needs.
      const state = { step, stage: stage.algo, seed: this.config.seed, algo: this.config.algo, optimizerStep: this.policy.step };
      writeFileSync(join(tmp, RUN_STATE_FILE), JSON.stringify(state, null, 2));
    });
    return dir;
  }
}
