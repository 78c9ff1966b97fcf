/**
 * Episodes as token streams (algorithms.md "Rollout modes"). All rollouts of a batch advance in
 * lockstep so each turn is one batched generate call. Token-in/token-out: the ids the policy
 * generated are kept as they are and are what the update trains on.
 *   real      observations from `env.step`
 *   rehearse  the policy writes each observation after `<|obs|>`; the env is never touched
 *   mixed     each step real with probability pReal
 * Malformed actions: real → the env's error observation; rehearse → the episode ends (reward 0, the
 * checklist scores any format error as 0).
 */
import { episodeSucceeded } from '../envs/success';
import type { RolloutPurpose, RolloutMode as StoredMode } from '../../contract';
import type { NewRollout } from '../store/rollouts';
import { scoreChecklist } from '../envs/checklist';
import { TranscriptRecorder } from '../envs/episode-base';
import { formatAction, parseAction } from '../envs/parser';
import type { Action, ChecklistResult, EnvCheck, Episode, Task, ToolCall, ToolEnv, ToolSpec } from '../envs/types';
import { AlgorithmError } from './errors';
import { type PromptInsertion, type Segment, type ToolSchemaMode, flatten, generatedSegment, givenSegment, memoryRoom, openIds, promptSegments, systemTextFor, taskDescription, toTurns } from './layout';
import type { Policy } from './policy';
import { Rng, deriveSeed } from '../random';
import { ServerDownEpisode } from '../envs/mcp/server-down-episode';
import { type ReferenceStep, simulatorPrompt } from './simulator';

export type RolloutMode = 'real' | 'rehearse' | 'mixed';

export interface RolloutSettings {
  maxTurns: number;
  maxTokensPerTurn: number;
  maxObservationTokens: number;
  temperature: number;
  topP: number;
  pReal: number;
  toolSchemas: ToolSchemaMode;
  /** How rehearsed observations are prompted: in the actor's stream, or by a separate simulator prompt. */
  rehearsePrompt: 'inline' | 'simulator';
  /** Calls one act may make and still earn checklist credit (envs/checklist.ts); absent: its default. */
  callBudget?: number;
  /** Context reserved for a rehearsal memory (testTime.memoryTokens); absent: none. */
  memoryTokens?: number;
  /** Ids rendered into every prompt (the robustness evaluation's perturbation); absent: none. */
  insertion?: PromptInsertion;
}

export interface RolloutRequest {
  task: Task;
  mode: RolloutMode;
  /** Rendered rehearsal memory placed in a `<|memory|>` block before the first act. */
  memory?: string;
  /**
   * Commit mode `plan`: take these calls one per turn while each real observation agrees with the
   * predicted one; after the first disagreement (or the plan's end) the policy acts.
   */
  plan?: PlanToFollow;
  /** Real call/result pairs of the task's reference trajectory (few-shot for the simulator prompt). */
  reference?: ReferenceStep[];
  /**
   * Commit mode `safe`: may replace the policy's act before it reaches the env (`calls` = the calls
   * already made in this episode). A replaced act is given text, like a followed plan step.
   */
  revise?: (action: Action, calls: readonly ToolCall[]) => Action;
}

export interface PlanToFollow {
  calls: ToolCall[];
  expected: string[];
  agrees(real: string, predicted: string): boolean;
}

export interface RolloutTurn {
  action: Action;
  /** The observation that followed (null after an answer or at the end). */
  observation: string | null;
  /** Whether the observation came from the real environment. */
  real: boolean;
}

export type EndReason = 'answer' | 'env-done' | 'max-turns' | 'context' | 'format-error';

export interface RolloutResult {
  task: Task;
  mode: RolloutMode;
  segments: Segment[];
  turns: RolloutTurn[];
  reward: number;
  checklist: ChecklistResult;
  /** The env's own end-state check (real and mixed episodes). */
  envCheck: EnvCheck | null;
  success: boolean | null;
  envCalls: number;
  envWallMs: number;
  tokensGenerated: number;
  endReason: EndReason;
  /** What failed in the environment itself during the episode (its server did not start, crashed or hung); null when nothing did. */
  envFailure: string | null;
  /** With the simulator prompt: one row per rehearsed observation (its prompt + the generated answer). */
  simulatorRows: Segment[][];
}

interface Live {
  req: RolloutRequest;
  tools: ToolSpec[];
  segments: Segment[];
  turns: RolloutTurn[];
  recorder: TranscriptRecorder;
  episode: Episode | null;
  maxTurns: number;
  end: EndReason | null;
  /** The act just generated, before the loop handles it. */
  pending: Action | null;
  /** The act being answered by an observation. */
  acted: Action | null;
  rng: Rng;
  /** Next plan step to take; -1 once the policy has taken over. */
  planStep: number;
  simulatorRows: Segment[][];
}

const length = (l: Live) => l.segments.reduce((n, s) => n + s.ids.length, 0);

/** Run a batch of episodes to their end. `label` makes the sampling seeds unique per call site. */
export async function runRollouts(
  policy: Policy,
  env: ToolEnv,
  requests: readonly RolloutRequest[],
  settings: RolloutSettings,
  seed: number,
  label: string,
): Promise<RolloutResult[]> {
  const lives: Live[] = [];
  // Turns reuse the keys of earlier turns of this batch only, so a batch's output depends on its
  // inputs and seed alone (exact resume replays it bit for bit).
  await policy.forgetPrefixes?.();
  try {
    for (const [i, req] of requests.entries()) {
      const tools = req.task.tools ?? env.tools();
      if (req.plan && req.mode !== 'real') throw new AlgorithmError(`task ${req.task.id}: a plan can only be followed in a real rollout`);
      // A pure rehearsal never opens an episode: zero env calls, by construction.
      const episode = req.mode === 'rehearse' ? null : await env.reset(req.task, deriveSeed(seed, label, 'reset', i));
      const prompt = taskPrompt(policy, env, req.task, tools, settings, req.memory, episode?.initialObservation ?? initialObservationOf(req.task));
      const live: Live = {
        req,
        tools,
        segments: prompt,
        turns: [],
        recorder: new TranscriptRecorder(),
        episode,
        maxTurns: Math.min(settings.maxTurns, req.task.maxTurns),
        end: null,
        pending: null,
        acted: null,
        rng: new Rng(deriveSeed(seed, label, 'mix', i)),
        planStep: req.plan?.calls.length ? 0 : -1,
        simulatorRows: [],
      };
      // A prompt the context cannot hold fails its own episode (ended by the context, reward 0), not
      // the batch: one long held-out prompt must not take an evaluation's other tasks with it.
      // Pre-flight counts such prompts and refuses a run where half or more do not fit.
      if (length(live) + 2 > policy.maxSeqLen) live.end = 'context';
      lives.push(live);
    }
    for (let turn = 0; lives.some((l) => !l.end); turn++) {
      await actTurn(policy, lives, settings, deriveSeed(seed, label, 'act', turn));
      const needRehearsal: Live[] = [];
      for (const l of lives.filter((x) => !x.end && x.pending)) {
        const action = l.pending!;
        l.pending = null;
        l.acted = action;
        l.recorder.recordAction(action);
        if (action.kind === 'calls') action.calls.forEach((c) => l.recorder.recordCall(c));
        if (action.kind === 'answer') {
          // The env hears the answer too: its end-state check (e.g. tau2's answer part) reads it.
          if (l.episode) await l.episode.step(action);
          l.turns.push({ action, observation: null, real: l.episode !== null });
          l.end = 'answer';
          continue;
        }
        const real = l.req.mode === 'real' || (l.req.mode === 'mixed' && l.rng.next() < settings.pReal);
        if (!real && action.kind === 'invalid') {
          l.turns.push({ action, observation: null, real: false });
          l.end = 'format-error';
          continue;
        }
        if (real) await realObservation(policy, l, action, settings);
        else needRehearsal.push(l);
      }
      if (settings.rehearsePrompt === 'simulator') await simulateTurn(policy, env, needRehearsal, settings, deriveSeed(seed, label, 'obs', turn));
      else await rehearseTurn(policy, needRehearsal, settings, deriveSeed(seed, label, 'obs', turn));
      for (const l of lives) if (!l.end && l.turns.length >= l.maxTurns) l.end = 'max-turns';
    }
    return await Promise.all(lives.map((l) => finish(l, settings)));
  } finally {
    await Promise.all(lives.map((l) => l.episode?.close()));
  }
}

function taskPrompt(policy: Policy, env: ToolEnv, task: Task, tools: ToolSpec[], settings: RolloutSettings, memory: string | undefined, initialObservation: string | undefined): Segment[] {
  return promptSegments(
    policy.tokenizer,
    policy.specials,
    { system: systemTextFor(policy.specials, taskDescription(env.description, task), tools, settings.toolSchemas), instruction: task.instruction, memory, initialObservation, insertion: settings.insertion },
    settings.maxObservationTokens,
    promptLimits(policy, settings),
  );
}

const promptLimits = (policy: Policy, settings: RolloutSettings) => ({
  maxSeqLen: policy.maxSeqLen,
  reserve: settings.maxTokensPerTurn + settings.maxObservationTokens,
  memoryTokens: settings.memoryTokens,
});

/**
 * A memory's tokens against the room the task's prompt leaves it, before any episode is opened (no
 * env call): the initial observation is the task's own, so an env whose reset writes a longer one
 * leaves a little less room than this says.
 */
export function memoryFitFor(policy: Policy, env: ToolEnv, task: Task, settings: RolloutSettings, memoryText: string): { total: number; room: number } {
  const room = memoryRoom(promptTokens(policy, env, task, settings), promptLimits(policy, settings));
  return { total: policy.tokenizer.encode(memoryText, { parseSpecial: false }).length, room };
}

/** Tokens of the task's prompt without a memory, its initial observation the task's own (no env call). */
function promptTokens(policy: Policy, env: ToolEnv, task: Task, settings: RolloutSettings): number {
  return taskPrompt(policy, env, task, task.tools ?? env.tools(), settings, undefined, initialObservationOf(task)).reduce((n, s) => n + s.ids.length, 0);
}

/** Whether the task's prompt (no memory) leaves room for a first act: a rollout of one that does not ends before it. */
export function promptFits(policy: Policy, env: ToolEnv, task: Task, settings: RolloutSettings): boolean {
  return promptTokens(policy, env, task, settings) + 2 <= policy.maxSeqLen;
}

/** Household-style tasks describe the scene in the first observation; rehearsals get it from the task. */
function initialObservationOf(task: Task): string | undefined {
  const v = task.meta?.initialObservation;
  return typeof v === 'string' ? v : undefined;
}

async function actTurn(policy: Policy, lives: Live[], s: RolloutSettings, seed: number): Promise<void> {
  const sp = policy.specials;
  const active = lives.filter((l) => !l.end);
  const rows: Live[] = [];
  for (const l of active) {
    // One id for `<|act|>`, one kept for a forced `<|end|>`.
    if (length(l) + 3 > policy.maxSeqLen) l.end = 'context';
    else if (l.planStep >= 0) followPlan(policy, l);
    else rows.push(l);
  }
  if (!rows.length) return;
  const gens = await policy.generate(
    rows.map((l) => ({ prompt: [...flatten(l.segments), ...openIds(sp, sp.act)], maxNewTokens: Math.min(s.maxTokensPerTurn, policy.maxSeqLen - length(l) - 2) })),
    { temperature: s.temperature, topP: s.topP, seed },
  );
  rows.forEach((l, i) => {
    const seg = generatedSegment(policy.tokenizer, sp, 'act', gens[i].tokens, gens[i].logprobs);
    const action = parseAction(seg.text, l.tools);
    const revised = l.req.revise?.(action, l.turns.flatMap((t) => (t.action.kind === 'calls' ? t.action.calls : [])));
    if (revised && revised !== action) {
      const text = formatAction(revised);
      l.segments.push(givenSegment(policy.tokenizer, sp, 'act', sp.act, text));
      l.pending = parseAction(text, l.tools);
    } else {
      l.segments.push(seg);
      l.pending = action;
    }
  });
}

/** The plan's next call as a given (not generated, not trained) act segment. */
function followPlan(policy: Policy, l: Live): void {
  const action: Action = { kind: 'calls', calls: [l.req.plan!.calls[l.planStep]] };
  l.segments.push(givenSegment(policy.tokenizer, policy.specials, 'act', policy.specials.act, formatAction(action)));
  l.pending = parseAction(formatAction(action), l.tools);
}

async function realObservation(policy: Policy, l: Live, action: Action, s: RolloutSettings): Promise<void> {
  const { observation, done } = await l.episode!.step(action);
  if (l.planStep >= 0) {
    const plan = l.req.plan!;
    const agreed = plan.agrees(observation, plan.expected[l.planStep] ?? '');
    l.planStep = agreed && l.planStep + 1 < plan.calls.length ? l.planStep + 1 : -1;
  }
  const room = policy.maxSeqLen - length(l) - 2;
  l.turns.push({ action, observation, real: true });
  if (room < 1) {
    l.end = 'context';
    return;
  }
  l.segments.push(givenSegment(policy.tokenizer, policy.specials, 'env', policy.specials.obs, observation, Math.min(s.maxObservationTokens, room)));
  if (done) l.end = 'env-done';
}

async function rehearseTurn(policy: Policy, lives: Live[], s: RolloutSettings, seed: number): Promise<void> {
  const sp = policy.specials;
  const rows: Live[] = [];
  for (const l of lives) {
    if (length(l) + 3 > policy.maxSeqLen) {
      l.turns.push({ action: l.acted!, observation: null, real: false });
      l.end = 'context';
    } else rows.push(l);
  }
  if (!rows.length) return;
  const gens = await policy.generate(
    rows.map((l) => ({ prompt: [...flatten(l.segments), ...openIds(sp, sp.obs)], maxNewTokens: Math.min(s.maxObservationTokens, policy.maxSeqLen - length(l) - 2) })),
    { temperature: s.temperature, topP: s.topP, seed },
  );
  rows.forEach((l, i) => {
    const seg = generatedSegment(policy.tokenizer, sp, 'rehearse', gens[i].tokens, gens[i].logprobs);
    l.segments.push(seg);
    l.turns.push({ action: l.acted!, observation: seg.text, real: false });
  });
}

/** Simulator prompt: each observation is generated from its own prompt, then given to the actor. */
async function simulateTurn(policy: Policy, env: ToolEnv, lives: Live[], s: RolloutSettings, seed: number): Promise<void> {
  const sp = policy.specials;
  const rows: Array<{ l: Live; prompt: Segment[] }> = [];
  for (const l of lives) {
    if (length(l) + 3 > policy.maxSeqLen) {
      l.turns.push({ action: l.acted!, observation: null, real: false });
      l.end = 'context';
      continue;
    }
    const input = { envDescription: env.description, tools: l.tools, reference: l.req.reference ?? [], history: l.turns, call: l.acted! };
    rows.push({ l, prompt: simulatorPrompt(policy.tokenizer, sp, input, policy.maxSeqLen - s.maxObservationTokens - 2) });
  }
  if (!rows.length) return;
  const gens = await policy.generate(
    rows.map(({ prompt }) => ({
      prompt: [...flatten(prompt), ...openIds(sp, sp.rehearse)],
      maxNewTokens: Math.min(s.maxObservationTokens, policy.maxSeqLen - flatten(prompt).length - 2),
    })),
    { temperature: s.temperature, topP: s.topP, seed },
  );
  rows.forEach(({ l, prompt }, i) => {
    const answer = generatedSegment(policy.tokenizer, sp, 'rehearse', gens[i].tokens, gens[i].logprobs, sp.rehearse);
    l.simulatorRows.push([...prompt, answer]);
    // In the actor's stream the observation is given text: it was generated elsewhere.
    const room = Math.min(s.maxObservationTokens, policy.maxSeqLen - length(l) - 2);
    l.segments.push(givenSegment(policy.tokenizer, sp, 'rehearse', sp.obs, answer.text, room));
    l.turns.push({ action: l.acted!, observation: answer.text, real: false });
  });
}

/** Ended by the context before its first act: the prompt alone did not fit. */
const promptTooLong = (l: Live) => l.end === 'context' && l.turns.length === 0 && !l.segments.some((g) => g.logprobs.length);

async function finish(l: Live, s: RolloutSettings): Promise<RolloutResult> {
  const checklist = scoreChecklist(l.req.task.checklist, l.recorder.snapshot(), { callBudget: s.callBudget });
  const envCheck = l.episode ? await l.episode.finalCheck() : null;
  const cost = l.episode?.cost() ?? { envCalls: 0, envWallMs: 0 };
  return {
    task: l.req.task,
    mode: l.req.mode,
    segments: l.segments,
    turns: l.turns,
    // An episode whose server never started learns nothing from what the transcript claims.
    reward: l.episode instanceof ServerDownEpisode || promptTooLong(l) ? 0 : checklist.score,
    checklist,
    envCheck,
    success: envCheck && l.episode ? !promptTooLong(l) && episodeSucceeded(l.episode, envCheck, checklist) : null,
    envCalls: cost.envCalls,
    envWallMs: cost.envWallMs,
    tokensGenerated: l.segments.reduce((n, s) => n + s.logprobs.length, 0),
    endReason: l.end ?? 'max-turns',
    envFailure: l.episode?.failures?.length ? l.episode.failures.join('; ') : null,
    simulatorRows: l.simulatorRows,
  };
}

/** The store's row for a rollout. */
export function toNewRollout(
  r: RolloutResult,
  meta: { runId: string | null; step: number | null; memoryId?: number | null; mode?: StoredMode; purpose?: RolloutPurpose },
): NewRollout {
  return {
    runId: meta.runId,
    step: meta.step,
    taskId: r.task.id,
    env: r.task.env,
    mode: meta.mode ?? r.mode,
    reward: r.reward,
    success: r.success,
    checklist: r.checklist,
    envCalls: r.envCalls,
    envWallMs: r.envWallMs,
    tokens: r.tokensGenerated,
    memoryId: meta.memoryId ?? null,
    purpose: meta.purpose ?? null,
    turns: toTurns(r.segments),
  };
}
