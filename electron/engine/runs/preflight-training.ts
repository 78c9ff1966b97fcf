/**
 * Pre-flight checks of what training itself will do, so that everything that would fail a run at
 * step 0 fails here with the knob to change: the stage layout (planStages' own rule), whether the
 * prompts and demonstrations fit the model's context (counted with the tokenizer the run will use),
 * a caution when SFT is too short to learn the output format, and the time and disk a run will take.
 * Runs on the engine's main thread, which never loads onnxruntime (test/integration/startup.test.ts):
 * so nothing here imports the loops, the policy or train.ts; the two rules taken from there are
 * restated below and pinned to their originals by test/unit/engine/preflight-training.test.ts.
 */
import { preset } from '../../../native-models/presets';
import { type ModelConfig, paramSpecs } from '../../../native-models/transformer/config';
import { plannedSteps, stagePlan, stagePlanProblem, type RunConfig } from '../../contract';
import type { DemoTranscript, SystemTextOf } from '../algorithms/demos';
import type { PolicyTokenizer, SpecialIds, ToolSchemaMode } from '../algorithms/layout';
import type { ToolEnv } from '../envs/types';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  warning?: boolean;
}

/** The stages a config trains, or why it has none: the contract's layout and refusals, as the engine uses them. */
export function stageLayout(c: RunConfig): { stages: Array<{ algo: string; steps: number }>; problem: string | null } {
  const problem = stagePlanProblem(c);
  if (problem) return { stages: [], problem };
  return { stages: stagePlan(c).map((st) => ({ algo: st.algo, steps: st.last - st.first + 1 })), problem: null };
}

/** The last step of each stage but the final one: the SFT warm start's, RWML's world-model stage's. */
export function stageEnds(config: RunConfig): number[] {
  const { stages } = stageLayout(config);
  return stages.slice(0, -1).map((_, i) => stages.slice(0, i + 1).reduce((n, st) => n + st.steps, 0));
}

function stagesCheck(config: RunConfig): { check: Check; stages: Array<{ algo: string; steps: number }> } {
  const { stages, problem } = stageLayout(config);
  if (problem) return { check: { name: 'stages', ok: false, detail: problem }, stages: [] };
  return { check: { name: 'stages', ok: true, detail: stages.map((st) => `${st.algo} × ${st.steps}`).join(' → ') }, stages };
}

/** Wall time spent recording demonstrations; past it, the fit is counted on those recorded so far. */
export const DEMO_BUDGET_MS = 3000;

/**
 * The run's demonstrations, recorded as the run records them: all of them (a file, or the expert on
 * every training task) unless that takes longer than `budgetMs`, then those of an evenly spread
 * subset (the files env's expert takes about half a second a task). One task at a time, so the engine
 * answers other requests in between.
 */
async function recordDemonstrations(env: ToolEnv, config: RunConfig, budgetMs: number, system: ToolSchemaMode | SystemTextOf): Promise<{ transcripts: DemoTranscript[]; of: number }> {
  const { runDemonstrations } = await import('../algorithms/demos');
  const tasks = env.tasks('train').map((t) => env.task(t.id));
  if (config.sft.demonstrations === 'file') {
    const transcripts = await runDemonstrations(env, tasks, config.sft, system, config.seed);
    return { transcripts, of: transcripts.length };
  }
  // Strided order: a sample cut short still spans the task list (families, difficulties).
  const stride = Math.max(1, Math.floor(Math.sqrt(tasks.length)));
  const order = Array.from({ length: stride }, (_, r) => tasks.filter((_, i) => i % stride === r)).flat();
  const transcripts: DemoTranscript[] = [];
  const t0 = Date.now();
  for (const task of order) {
    if (transcripts.length >= 4 && Date.now() - t0 > budgetMs) break;
    transcripts.push(...(await runDemonstrations(env, [task], config.sft, system, config.seed)));
  }
  return { transcripts, of: tasks.length };
}

/** What the context check found: its checks, and mean token counts for the time estimate. */
export interface Fit {
  checks: Check[];
  /** Mean tokens of a demonstration as SFT trains it (cut to the context), and of a task's prompt. */
  demoTokens: number | null;
  promptTokens: number | null;
  /** A fresh tokenizer's vocabulary (the preset's embedding grows or shrinks to it); null when not trained here. */
  vocabSize: number | null;
}

function contextKnobs(config: RunConfig, maxSeqLen: number, modelSeqLen = maxSeqLen): string {
  return [
    config.rollout.toolSchemas !== 'none' ? `rollout.toolSchemas '${config.rollout.toolSchemas}' → 'none'` : null,
    `a lower rollout.maxObservationTokens (now ${config.rollout.maxObservationTokens})`,
    'preset' in config.model
      ? config.model.preset !== 'small'
        ? `a preset with a longer context than ${maxSeqLen} tokens (tiny 1024, small 2048)`
        : null
      : config.contextTokens !== undefined && config.contextTokens < modelSeqLen
        ? `a larger contextTokens (now ${config.contextTokens}; ${config.model.imported} has ${modelSeqLen})`
        : `an imported model with a longer context than ${config.model.imported}'s ${maxSeqLen} tokens`,
  ]
    .filter((x) => x !== null)
    .join(', or ');
}

/**
 * Whether the run's prompts and demonstrations fit the model's context, counted with the tokenizer
 * the run will use: a fresh preset run's byte-level BPE, trained here on the same corpus as train.ts
 * trains it at start (measured: 0.5–0.8 s for retail's 200 demonstrations), or an imported model's
 * own with the role markers added. SFT fails at step 0 when no demonstration's prompt and first act
 * fit; a rollout fails on any task whose prompt does not. A run from another run's checkpoint
 * (initFrom) uses that tokenizer: not checked here.
 */
export async function contextFit(
  config: RunConfig,
  env: ToolEnv,
  modelsDir: string | undefined,
  uses: { sft: boolean; rollouts: boolean; demonstrationsFileRefused?: boolean },
  budgetMs = DEMO_BUDGET_MS,
): Promise<Fit> {
  const none: Fit = { checks: [], demoTokens: null, promptTokens: null, vocabSize: null };
  if (config.initFrom || (!uses.sft && !uses.rollouts)) return none;
  const [{ demoCorpus, demoSegments, recorded }, layout] = await Promise.all([import('../algorithms/demos'), import('../algorithms/layout')]);
  // A demonstrations file the request may not use (outside the data home, missing, too big) is never
  // opened: the demonstrations check has said why, and the fit is judged on the schemas instead.
  const hasDemos = config.sft.demonstrations === 'file' ? !uses.demonstrationsFileRefused : env.expert !== undefined;
  // An imported model's tokenizer comes first: its chat frame writes the system block (its tool block
  // included) that its demonstrations and prompts carry, as the run writes them (policy.ts).
  let imported: { tokenizer: PolicyTokenizer; sp: SpecialIds; maxSeqLen: number; modelSeqLen: number; which: string } | undefined;
  if ('imported' in config.model) {
    const [{ listModels }, { SPECIAL_TOKENS, loadTokenizer }, { chatFrame }] = await Promise.all([
      import('../models/registry'),
      import('../../../native-models/tokenizer'),
      import('../algorithms/chat-frame'),
    ]);
    const name = config.model.imported;
    const entry = modelsDir ? listModels(modelsDir).find((m) => m.name === name) : undefined;
    if (!entry) return none; // the model check says so
    let tokenizer: ReturnType<typeof loadTokenizer>;
    try {
      tokenizer = loadTokenizer(entry.path).withSpecialTokens(SPECIAL_TOKENS, entry.config.vocabSize);
    } catch {
      return none; // the tokenizer check says so
    }
    // The run cuts the model's context to contextTokens (policy.ts withContext): its prompts must fit that.
    const maxSeqLen = Math.min(entry.config.maxSeqLen, config.contextTokens ?? Infinity);
    imported = { tokenizer, sp: layout.specialIds(tokenizer, chatFrame(tokenizer)), maxSeqLen, modelSeqLen: entry.config.maxSeqLen, which: `${entry.name}'s tokenizer and chat template` };
  }
  const mode = config.rollout.toolSchemas;
  const framed = imported?.sp;
  const systemOf: SystemTextOf = (d, tools) => (framed ? layout.systemTextFor(framed, d, tools, mode) : layout.systemText(d, tools, mode));
  let sample: { transcripts: DemoTranscript[]; of: number } = { transcripts: [], of: 0 };
  if (hasDemos) {
    try {
      sample = await recordDemonstrations(env, config, budgetMs, systemOf);
    } catch (error) {
      return { ...none, checks: [{ name: 'context', ok: false, detail: `recording the demonstrations failed: ${(error as Error).message}` }] };
    }
  }
  let tokenizer: PolicyTokenizer;
  let vocabSize: number | null = null;
  let maxSeqLen: number;
  let which: string;
  let sp: SpecialIds;
  if (imported) {
    ({ tokenizer, sp, maxSeqLen, which } = imported);
  } else if ('preset' in config.model) {
    const base = preset(config.model.preset);
    const corpus = sample.transcripts.length
      ? demoCorpus(sample.transcripts)
      : [layout.systemText(env.description, env.tools(), 'full'), ...env.tasks('train').map((t) => env.task(t.id).instruction)];
    const { envTokenizer, MIN_VOCAB } = await import('../algorithms/env-tokenizer');
    tokenizer = envTokenizer(corpus, Math.max(base.vocabSize, MIN_VOCAB), { wordStarts: config.tokenizerWordStarts, digits: config.tokenizerDigits });
    maxSeqLen = base.maxSeqLen;
    vocabSize = tokenizer.vocabSize;
    const on = !hasDemos ? 'the tool schemas and instructions' : sample.transcripts.length < sample.of ? `${sample.transcripts.length} of the ${sample.of} demonstrations` : 'the demonstrations';
    which = `the run's byte-level BPE (${tokenizer.vocabSize} ids) trained on ${on}`;
    sp = layout.specialIds(tokenizer);
  } else return none;
  const maxObs = config.rollout.maxObservationTokens;
  const promptTokens = (t: Pick<DemoTranscript, 'system' | 'instruction' | 'initialObservation'>) =>
    layout.promptSegments(tokenizer, sp, { system: t.system, instruction: t.instruction, initialObservation: t.initialObservation }, maxObs).reduce((n, g) => n + g.ids.length, 0);
  // Without demonstrations, the tasks' own prompts (no initial observation recorded), each with its own tools (bfcl's).
  const taskSystem = (task: ReturnType<typeof env.task>) => systemOf(layout.taskDescription(env.description, task), task.tools ?? env.tools());
  // A demonstration whose environment failed (its server did not start) shows our error text: it is
  // dropped by SFT, so it is counted here and left out of the fit.
  const good = recorded(sample.transcripts);
  const prompts = good.length
    ? good.map(promptTokens)
    : env.tasks('train').map((t) => env.task(t.id)).map((task) => promptTokens({ system: taskSystem(task), instruction: task.instruction, initialObservation: '' }));
  const counted = `counted with ${which}`;
  const knobs = contextKnobs(config, maxSeqLen, imported?.modelSeqLen);
  const checks: Check[] = [];
  if (uses.rollouts && prompts.length) {
    const longest = Math.max(...prompts);
    // rollout.ts refuses a prompt with fewer than 2 tokens of room.
    const over = prompts.filter((n) => n + 2 > maxSeqLen).length;
    // A few long prompts cost those tasks only (their rollouts stop at once): a caution. When half or
    // more do not fit, the run would hardly train: a refusal.
    const refuse = over * 2 >= prompts.length;
    checks.push(
      over
        ? {
            name: 'context',
            ok: !refuse,
            ...(refuse ? {} : { warning: true }),
            detail: `${over} of ${prompts.length} task prompts do not fit the model's context of ${maxSeqLen} tokens (longest ${longest}, ${counted}): rollouts stop there. Set ${knobs}`,
          }
        : { name: 'context', ok: true, detail: `every task prompt fits the context of ${maxSeqLen} tokens (longest ${longest}, ${counted})` },
    );
    // A rehearsal memory sits in the prompt too: its reserved room must fit beside the longest one.
    // Memory-aware training puts one there (a failure); test-time rehearsal may (a caution).
    const memory = config.testTime.memoryTokens;
    const memoryFits = longest + memory + 4 <= maxSeqLen;
    const training = config.testTime.memoryAwareFraction > 0;
    checks.push({
      name: 'memory room',
      ok: memoryFits || !training,
      ...(memoryFits || training ? {} : { warning: true }),
      detail: memoryFits
        ? `${memory} tokens reserved for a rehearsal memory fit beside the longest prompt (${longest} of ${maxSeqLen})`
        : `the longest prompt (${longest}) and the ${memory} tokens reserved for a rehearsal memory exceed the context of ${maxSeqLen}${training ? ', and memory-aware training puts a memory there' : '; test-time rehearsal would have no room'}: lower testTime.memoryTokens, or ${knobs}`,
    });
  }
  let demoTokens: number | null = null;
  const failed = sample.transcripts.filter((t) => t.envFailure !== undefined);
  if (uses.sft && failed.length) {
    const n = sample.transcripts.length;
    const named = failed.slice(0, 5).map((t) => `${t.taskId}: ${t.envFailure}`).join('; ');
    checks.push({
      name: 'demonstrations recorded',
      ok: failed.length < n,
      ...(failed.length < n ? { warning: true } : {}),
      detail: `${failed.length} of ${n} ${sample.transcripts.length < sample.of ? 'sampled ' : ''}demonstrations failed in the environment while they were recorded and will be dropped (SFT logs each): ${named}${failed.length > 5 ? `; … and ${failed.length - 5} more` : ''}`,
    });
  }
  if (uses.sft && good.length) {
    const n = good.length;
    const fitting = good.map((t) => demoSegments(tokenizer, sp, t, maxObs, maxSeqLen)).filter((d) => d !== null);
    if (!fitting.length) {
      // The shortest demonstration's prompt and first act: what has to shrink below the context.
      const shortest = Math.min(...good.map((t) => promptTokens(t) + tokenizer.encode(t.steps[0]?.actionText ?? '', { parseSpecial: false }).length + 2));
      checks.push({
        name: 'demonstrations fit',
        ok: false,
        detail: `no ${config.sft.demonstrations} demonstration of ${env.id} fits the model's context of ${maxSeqLen} tokens: the shortest prompt and first act take ${shortest} (${counted}). Set ${knobs}`,
      });
    } else {
      demoTokens = fitting.reduce((k, d) => k + d.segments.reduce((m, g) => m + g.ids.length, 0), 0) / fitting.length;
      checks.push({
        name: 'demonstrations fit',
        ok: true,
        // SFT on a few survivors, or on demonstrations cut to their first act, teaches little.
        warning: fitting.length < n / 2 ? true : undefined,
        detail: `${fitting.length} of ${n}${failed.length ? ' recorded' : ''} demonstrations fit the context of ${maxSeqLen} tokens at least to their first act (longer ones are cut after their last whole turn that fits; ${counted})${fitting.length < n ? `; ${n - fitting.length} dropped: their prompt and first turn are longer than the context (SFT logs each). Set ${knobs}` : ''}`,
      });
    }
  }
  return { checks, demoTokens, promptTokens: prompts.length ? prompts.reduce((a, b) => a + b, 0) / prompts.length : null, vocabSize };
}

/**
 * A heuristic, not a measurement: a model trained from scratch writes no parseable tool call until
 * SFT has shown it the action grammar for a while, and RL on random text earns nothing. The
 * recommended recipes train the format with 400 SFT steps (nano, tiny) or 600 (small); below a
 * quarter of that we warn. An imported chat model, or a run from another run's checkpoint, already writes text.
 */
export const FORMAT_SFT_STEPS = { nano: 100, tiny: 100, small: 150 } as const;

export function formatBudgetCheck(config: RunConfig): Check | null {
  if (!('preset' in config.model) || config.initFrom) return null;
  const sft = config.algo === 'sft' ? config.steps : config.sft.steps;
  const need = FORMAT_SFT_STEPS[config.model.preset];
  if (sft >= need) return null;
  const knob = config.algo === 'sft' ? 'steps' : 'sft.steps';
  return {
    name: 'format budget',
    ok: true,
    warning: true,
    detail: `${sft} SFT steps for a ${config.model.preset} model trained from scratch: it will likely not learn the tool-call format, so rewards stay near 0 (a heuristic: recipes use 400+ steps, this warns below ${need}); raise ${knob}`,
  };
}

const BYTES = 4; // float32 weights and moments

/**
 * Throughput on the reference machine (2 cores, one ORT thread): train-step tokens/s at batch 8×256
 * and batch-16 decode tokens/s. tiny and small: README "Benchmarks" (small mid-range; two-layer tiny one
 * run, 2026-12-02); nano: measured the same way with native-models/bench (8×255, 64 new tokens) on
 * 2026-12-01. Other models: small's, scaled by size.
 */
export const BENCH: Record<'nano' | 'tiny' | 'small', { params: number; train: number; decode: number }> = {
  nano: { params: 0.16e6, train: 5_700, decode: 2_400 },
  tiny: { params: 2.0e6, train: 5_000, decode: 8_100 },
  small: { params: 27.8e6, train: 910, decode: 1_170 },
};

/**
 * Checkpoints a run writes (every `checkpointEvery` steps, and its last) and how many retention keeps
 * at most: the newest N, the best, and those at the end of a stage before the last (training.ts).
 */
export function checkpointCounts(config: RunConfig, stageEnds: readonly number[] = []): { written: number; kept: number } {
  const total = plannedSteps(config);
  const written = Math.floor(total / config.checkpointEvery) + (total % config.checkpointEvery ? 1 : 0);
  const best = config.checkpointKeepBest && config.evalEvery > 0 ? 1 : 0;
  const ends = stageEnds.filter((step) => step % config.checkpointEvery === 0).length;
  return { written, kept: Math.min(written, config.checkpointKeepLast + best + ends) };
}

/**
 * One checkpoint folder: trained weights and both AdamW moments (float32), frozen LoRA base weights,
 * a KL reference when klBeta > 0 (the weights again), and the tokenizer (about 32 bytes an id).
 */
export function checkpointBytesEstimate(c: ModelConfig, klBeta: number): number {
  const specs = paramSpecs(c);
  const count = (trainable: boolean) => specs.filter((p) => p.trainable === trainable).reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0);
  const weights = 3 * count(true) + count(false) + (klBeta > 0 ? count(true) + count(false) : 0);
  return weights * BYTES + 32 * c.vocabSize;
}

/**
 * Time, roughly, from the bench figures: per SFT step its rows of demonstration tokens through the
 * train step; per RL step every rollout generating its whole turn budget (acts, plus observations
 * when rehearsing) and then trained ppoEpochs times; each evaluation the held-out tasks' acts. Setup
 * (demonstrations, tokenizer, compiling the model) is not counted: on a 6-step nano run with an
 * evaluation after each step (test/integration/retention.test.ts) this said 9 s for 25 s of wall time.
 */
export function timeEstimate(
  config: RunConfig,
  model: ModelConfig,
  params: number,
  stages: ReadonlyArray<{ algo: string; steps: number }>,
  fit: Pick<Fit, 'demoTokens' | 'promptTokens'>,
  heldoutTasks: number,
): { seconds: number; basis: string } {
  const name = 'preset' in config.model ? config.model.preset : null;
  const scale = name ? 1 : BENCH.small.params / params;
  const train = (name ? BENCH[name] : BENCH.small).train * scale;
  const decode = (name ? BENCH[name] : BENCH.small).decode * scale;
  const r = config.rollout;
  const rows = r.tasksPerStep * r.k;
  const prompt = fit.promptTokens ?? model.maxSeqLen / 2;
  const room = Math.max(0, model.maxSeqLen - prompt);
  let seconds = 0;
  for (const { algo, steps } of stages) {
    if (algo === 'sft') {
      seconds += (steps * rows * (fit.demoTokens ?? model.maxSeqLen)) / train;
      continue;
    }
    const rehearses = algo.startsWith('envace') || algo === 'rwml';
    const generated = Math.min(room, r.maxTurns * (r.maxTokensPerTurn + (rehearses ? r.maxObservationTokens : 0)));
    const trained = Math.min(model.maxSeqLen, prompt + r.maxTurns * (r.maxTokensPerTurn + r.maxObservationTokens));
    seconds += steps * ((rows * generated) / decode + (rows * trained * config.optim.ppoEpochs) / train);
  }
  if (config.evalEvery > 0) {
    // Before the first step, every evalEvery steps, and at the last when it is not a multiple (context.ts).
    const total = plannedSteps(config);
    const evaluations = 1 + Math.floor(total / config.evalEvery) + (total % config.evalEvery === 0 ? 0 : 1);
    seconds += (evaluations * heldoutTasks * Math.min(room, r.maxTurns * r.maxTokensPerTurn)) / decode;
  }
  const where = name ? `${name}'s bench figures` : `small's bench figures scaled to ${(params / 1e6).toFixed(1)}M parameters`;
  return {
    seconds: Math.round(seconds),
    basis: `rough, from ${where} (2 cores, 1 thread: train ${Math.round(train)} tokens/s, decode ${Math.round(decode)} tokens/s), every rollout using its whole turn budget; setup (compiling, demonstrations) not counted`,
  };
}

/** The model a run will train, as far as pre-flight can tell (an imported one from `modelsDir`); null when unknown. */
async function modelOf(config: RunConfig, modelsDir: string | undefined): Promise<ModelConfig | null> {
  if ('preset' in config.model) return preset(config.model.preset);
  if (!modelsDir) return null;
  const [{ listModels }, { loraOf }] = await Promise.all([import('../models/registry'), import('../algorithms/lora-config')]);
  const entry = listModels(modelsDir).find((m) => m.name === (config.model as { imported: string }).imported);
  const lora = loraOf(config);
  return entry ? (lora ? { ...entry.config, lora } : entry.config) : null;
}

export interface PreflightEstimate {
  seconds: number | null;
  secondsBasis: string;
  checkpointBytes: number | null;
  checkpointsKept: number;
  diskBytes: number | null;
  diskBasis: string;
}

/**
 * Everything pre-flight says about training itself: stages, context fit, format budget, and the
 * time and disk estimate (with the retention knobs that bound the disk).
 */
export async function trainingChecks(
  config: RunConfig,
  modelsDir: string | undefined,
  options: { demoBudgetMs?: number; demonstrationsFileRefused?: boolean } = {},
): Promise<{ checks: Check[]; estimate: PreflightEstimate }> {
  const { check: stages, stages: plan } = stagesCheck(config);
  const checks: Check[] = [stages];
  let fit: Omit<Fit, 'checks'> = { demoTokens: null, promptTokens: null, vocabSize: null };
  let heldout = 0;
  try {
    const [{ getEnv }, { envOptions }] = await Promise.all([import('../envs/registry'), import('../algorithms/env-options')]);
    const env = await getEnv(config.env, envOptions(config));
    heldout = env.tasks('heldout').length;
    const sft = plan.some((st) => st.algo === 'sft');
    const rollouts = plan.some((st) => st.algo !== 'sft') || config.evalEvery > 0;
    const found = await contextFit(config, env, modelsDir, { sft, rollouts, demonstrationsFileRefused: options.demonstrationsFileRefused }, options.demoBudgetMs);
    checks.push(...found.checks);
    fit = found;
  } catch {
    // The environment check already says why it cannot be reached.
  }
  const known = await modelOf(config, modelsDir);
  const model = known && fit.vocabSize !== null ? { ...known, vocabSize: fit.vocabSize } : known;
  const format = formatBudgetCheck(config);
  if (format) checks.push(format);

  const ends = stageEnds(config);
  const { written, kept } = checkpointCounts(config, ends);
  const checkpointBytes = model ? checkpointBytesEstimate(model, config.loss.klBeta) : null;
  const time = model && plan.length ? timeEstimate(config, model, paramSpecs(model).reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0), plan, fit, heldout) : null;
  const best = config.checkpointKeepBest ? (config.evalEvery > 0 ? ' + the best by held-out success' : ' (checkpointKeepBest needs evalEvery > 0)') : '';
  const retention = `checkpointKeepLast ${config.checkpointKeepLast}${best}${ends.length ? ' + the end of each stage before the last' : ''}`;
  return {
    checks,
    estimate: {
      seconds: time?.seconds ?? null,
      secondsBasis: time?.basis ?? 'no estimate: the model or the stages are not known',
      checkpointBytes,
      checkpointsKept: kept,
      diskBytes: checkpointBytes === null ? null : kept * checkpointBytes,
      diskBasis: `${kept} of ${written} checkpoints kept (${retention}) × the size of one (weights + AdamW moments${config.loss.klBeta > 0 ? ' + KL reference' : ''} + tokenizer); metrics and rollouts not counted`,
    },
  };
}
