/**
 * The oracle policy: drive an environment's scripted expert through the REAL environment and
 * score it exactly as a model would be scored — every action goes through the text grammar
 * (formatAction → parseAction with the env's tools), then the checklist and the env's own
 * end-state check. A 100% oracle score is the proof that tasks, tools and checks agree.
 */
import { performance } from 'node:perf_hooks';
import { scoreChecklist } from './checklist';
import { episodeSucceeded } from './success';
import { TranscriptRecorder } from './episode-base';
import { formatAction, parseAction } from './parser';
import type { Action, ChecklistResult, EnvCheck, ExpertPolicy, JsonValue, Split, Task, ToolEnv } from './types';

export interface EpisodeResult {
  taskId: string;
  /** Checks the environment could not make (e.g. tau2's NL assertions, which need an LLM judge): the task is neither passed nor failed on them. */
  unchecked: string[];
  /** Checklist score in [0, 1]; 0 when the environment rejected a call (the gold does not fit the server, whatever the checklist reads). */
  score: number;
  /** The env's end-state check passed and no format error occurred. */
  success: boolean;
  checklist: ChecklistResult;
  envCheck: EnvCheck;
  turns: number;
  envCalls: number;
  envWallMs: number;
}

export interface OracleResult {
  env: string;
  split: Split;
  /** Mean checklist score. */
  score: number;
  /** Fraction of tasks whose episode succeeded (an unchecked task never does). */
  success: number;
  /** Success among the tasks every check of which could be made: what a 100% oracle claims. */
  checkedSuccess: number;
  /** Tasks with a check that could not be made. */
  unchecked: number;
  perTask: EpisodeResult[];
  envCalls: number;
  wallMs: number;
}

/** The names of the checks an environment reported as skipped and not passed: it could not make them. */
export function uncheckedParts(check: EnvCheck): string[] {
  return check.checks.filter((c) => c.skipped && !c.passed).map((c) => c.name);
}

export class OracleError extends Error {
  override name = 'OracleError';
}

/** Anything that picks the next action from the last observation (an expert, a test policy). */
export type PolicyFn = (lastObservation: string, task: Task) => Action;

/** Run one episode of `policy` in the real env and score it. */
export async function runEpisode(env: ToolEnv, task: Task, policy: ExpertPolicy | PolicyFn, seed = 0): Promise<EpisodeResult> {
  const next = typeof policy === 'function' ? (obs: string) => policy(obs, task) : (obs: string) => policy.next(obs);
  const tools = task.tools ?? env.tools();
  const episode = await env.reset(task, seed);
  const recorder = new TranscriptRecorder();
  let observation = episode.initialObservation;
  let turns = 0;
  try {
    for (let done = false; !done && turns < task.maxTurns; turns++) {
      // Round-trip through the grammar so the oracle is held to what a model must emit.
      const action = parseAction(formatAction(next(observation)), tools);
      recorder.recordAction(action);
      if (action.kind === 'calls') action.calls.forEach((c) => recorder.recordCall(c));
      ({ observation, done } = await episode.step(action));
    }
    const transcript = recorder.snapshot();
    const checklist = scoreChecklist(task.checklist, transcript);
    const envCheck = await episode.finalCheck();
    // The success rule every scorer shares (success.ts); a rejected call is also named among the checks.
    const rejected = episode.rejectedCalls?.() ?? [];
    if (rejected.length > 0) envCheck.checks.push({ name: 'the server accepted every call', passed: false, detail: rejected.join('; ') });
    const { envCalls, envWallMs } = episode.cost();
    return {
      taskId: task.id,
      unchecked: uncheckedParts(envCheck),
      score: rejected.length > 0 ? 0 : checklist.score,
      success: episodeSucceeded(episode, envCheck, checklist),
      checklist,
      envCheck,
      turns,
      envCalls,
      envWallMs,
    };
  } finally {
    await episode.close();
  }
}

/**
 * Why an episode failed, in words that read as a failure: a check's name states its claim ("… holds
 * the expected entries"), so each unmet one is said to be not met, with what was found instead.
 */
export function failureReason(r: EpisodeResult): string {
  const failed = [
    ...r.envCheck.checks.filter((c) => !c.passed && !c.skipped).map((c) => `not met: ${c.name}${c.detail ? ` — ${c.detail}` : ''}`),
    ...r.checklist.items.filter((i) => !i.passed && i.weight > 0).map((i) => `checklist item not met: ${i.description}`),
  ];
  return failed.join('; ') || (r.checklist.formatError ? 'a gold action did not parse' : 'failed');
}

/** At most `n` of `items`, spread evenly from the first to (near) the last, in their order. */
export function evenlySpaced<T>(items: readonly T[], n: number): T[] {
  if (n >= items.length) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
}

/**
 * `envace eval --policy oracle`: the env's expert on every task of a split, or on `limit` of them:
 * the first ones, or with `spread` ones spread evenly over the split (`envs test`: a problem late in a
 * long task file is still seen).
 */
export async function runOracle(env: ToolEnv, split: Split, opts: { limit?: number; spread?: boolean; seed?: number } = {}): Promise<OracleResult> {
  if (!env.expert) throw new OracleError(`environment '${env.id}' has no scripted expert`);
  const all = env.tasks(split);
  const refs = opts.limit === undefined ? all : opts.spread ? evenlySpaced(all, opts.limit) : all.slice(0, opts.limit);
  const t0 = performance.now();
  const perTask: EpisodeResult[] = [];
  for (const ref of refs) {
    const task = env.task(ref.id);
    perTask.push(await runEpisode(env, task, env.expert(task), opts.seed ?? 0));
  }
  const n = Math.max(1, perTask.length);
  const checked = perTask.filter((r) => r.unchecked.length === 0);
  return {
    env: env.id,
    split,
    score: perTask.reduce((s, r) => s + r.score, 0) / n,
    success: perTask.reduce((s, r) => s + (r.success ? 1 : 0), 0) / n,
    checkedSuccess: checked.filter((r) => r.success).length / Math.max(1, checked.length),
    unchecked: perTask.length - checked.length,
    perTask,
    envCalls: perTask.reduce((s, r) => s + r.envCalls, 0),
    wallMs: performance.now() - t0,
  };
}

/**
 * One tool call in a fresh episode (the GUI's tool console). The call is validated like a
 * model's; errors come back as the observation, never thrown.
 */
export async function callTool(
  env: ToolEnv,
  toolName: string,
  args: { [key: string]: JsonValue },
  opts: { taskId?: string } = {},
): Promise<{ observation: string; ok: boolean }> {
  const ref = opts.taskId ? env.task(opts.taskId) : (env.tasks('train')[0] ?? env.tasks('heldout')[0]);
  if (!ref) throw new OracleError(`environment '${env.id}' has no task to open an episode with`);
  const task = env.task(ref.id);
  const action = parseAction(formatAction({ kind: 'calls', calls: [{ name: toolName, arguments: args }] }), task.tools ?? env.tools());
  if (action.kind === 'invalid') return { observation: action.error, ok: false };
  const episode = await env.reset(task, 0);
  try {
    const { observation } = await episode.step(action);
    return { observation, ok: !observation.startsWith('Error:') };
  } finally {
    await episode.close();
  }
}
