/**
 * Demonstrations for SFT and the tokenizer corpus — each env's scripted expert driven through the
 * real environment (actions in the shared text grammar), or a user's JSONL file of trajectories —
 * laid out as token segments in the same layout the policy generates in.
 */
import { z } from 'zod';
import { JSONL_LINE_BOUNDS, parseJsonLines } from '../envs/jsonl';
import { formatAction, parseAction } from '../envs/parser';
import type { Action, Task, ToolEnv, ToolSpec } from '../envs/types';
import { UserPathError, checkUserFile, readUserText } from '../home/user-paths';
import { isErrorObservation } from '../envs/error-observation';
import { probeCall } from './error-probes';
import { AlgorithmError } from './errors';
import { Rng, deriveSeed } from '../random';
import { type PolicyTokenizer, type Segment, type SpecialIds, type ToolSchemaMode, givenSegment, promptSegments, systemText, taskDescription } from './layout';

export interface DemoTranscript {
  taskId: string;
  instruction: string;
  system: string;
  initialObservation: string;
  /** `probe`: a wrong call shown for the error it met (error-probes.ts) — context, never an act target. */
  steps: Array<{ actionText: string; observation: string | null; probe?: boolean }>;
  /** Real environment calls it took to record this (0 for a demonstrations file). */
  envCalls: number;
  /**
   * What failed in the environment while this was recorded (its server did not start, crashed or
   * hung): the steps show our error text, not the world's, so SFT drops it (fitDemonstration).
   */
  envFailure?: string;
}

export interface Demonstration {
  taskId: string;
  segments: Segment[];
}

/** How a transcript's system block is written: a tool-schema mode of ours, or the policy's own (an imported model's template: layout.systemTextFor). */
export type SystemTextOf = (description: string, tools: readonly ToolSpec[]) => string;

const systemTextOf = (t: ToolSchemaMode | SystemTextOf): SystemTextOf => (typeof t === 'function' ? t : (d, tools) => systemText(d, tools, t));

/**
 * Run the expert on each task in the real env and record what it wrote and saw. With `errorProbes`
 * > 0, that share of the tasks (drawn per task from the seed) also records one wrong call before the
 * expert's first and the environment's error (error-probes.ts); its env calls count as gathering.
 */
export async function expertTranscripts(
  env: ToolEnv,
  tasks: readonly Task[],
  toolSchemas: ToolSchemaMode | SystemTextOf,
  seed: number,
  errorProbes = 0,
): Promise<DemoTranscript[]> {
  if (!env.expert) throw new AlgorithmError(`environment '${env.id}' has no scripted expert to learn from`);
  const out: DemoTranscript[] = [];
  for (const task of tasks) {
    const tools = task.tools ?? env.tools();
    const expert = env.expert(task);
    const episode = await env.reset(task, seed);
    const rng = new Rng(deriveSeed(seed, 'error-probe', task.id));
    let probeCalls = 0;
    let probe = errorProbes > 0 && rng.next() < errorProbes;
    try {
      const steps: DemoTranscript['steps'] = [];
      let observation = episode.initialObservation;
      for (let turn = 0; turn < task.maxTurns; turn++) {
        const actionText = formatAction(expert.next(observation));
        const action = parseAction(actionText, tools);
        if (action.kind === 'answer') {
          steps.push({ actionText, observation: null });
          break;
        }
        if (probe) {
          probe = false;
          const wrong = probeCall(action, rng);
          if (wrong) {
            const r = await probeOnce(env, task, seed, wrong);
            probeCalls += r.envCalls;
            // An error from a server that failed is ours, not the world's answer to the wrong call.
            if (isErrorObservation(r.observation) && !r.failed) steps.push({ actionText: formatAction(wrong), observation: r.observation, probe: true });
          }
        }
        const r = await episode.step(action);
        observation = r.observation;
        steps.push({ actionText, observation });
        if (r.done) break;
      }
      out.push({
        taskId: task.id,
        instruction: task.instruction,
        system: systemTextOf(toolSchemas)(taskDescription(env.description, task), tools),
        initialObservation: episode.initialObservation,
        steps,
        envCalls: episode.cost().envCalls + probeCalls,
        ...(episode.failures?.length ? { envFailure: episode.failures.join('; ') } : {}),
      });
    } finally {
      await episode.close();
    }
  }
  return out;
}

/** One call on a fresh episode of `task`, so the demonstration's own episode never sees it. */
async function probeOnce(env: ToolEnv, task: Task, seed: number, action: Action): Promise<{ observation: string; envCalls: number; failed: boolean }> {
  const episode = await env.reset(task, seed);
  try {
    const r = await episode.step(action);
    return { observation: r.observation, envCalls: episode.cost().envCalls, failed: (episode.failures?.length ?? 0) > 0 };
  } finally {
    await episode.close();
  }
}

/** Every text a tokenizer for this env should know: prompts, actions, observations. */
export function demoCorpus(transcripts: readonly DemoTranscript[]): string[] {
  return transcripts
    .flatMap((t) => [t.system, t.instruction, t.initialObservation, ...t.steps.flatMap((s) => [s.actionText, s.observation ?? ''])])
    .filter((x) => x.length > 0);
}

/** The transcripts whose environment did not fail while they were recorded. */
export const recorded = (transcripts: readonly DemoTranscript[]): DemoTranscript[] => transcripts.filter((t) => t.envFailure === undefined);

/** Why a demonstration whose environment failed is dropped, in words (SFT's log, the pre-flight). */
export const envFailureDrop = (failure: string): string => `the environment failed while it was recorded: ${failure}`;

/**
 * Lay a transcript out as segments, dropping trailing turns that do not fit in `maxSeqLen`; a
 * transcript whose prompt and first turn do not fit at all is dropped, with the reason in words.
 */
export function fitDemonstration(
  tok: PolicyTokenizer,
  sp: SpecialIds,
  t: DemoTranscript,
  maxObservationTokens: number,
  maxSeqLen: number,
  memory?: { text: string; reserve: number; memoryTokens: number },
): { demo: Demonstration } | { dropped: string } {
  if (t.envFailure !== undefined) return { dropped: envFailureDrop(t.envFailure) };
  // A memory gets the room a rollout would give it (promptSegments' limits), so SFT shows the prompt test time builds.
  const segments = promptSegments(
    tok,
    sp,
    { system: t.system, instruction: t.instruction, initialObservation: t.initialObservation, memory: memory?.text },
    maxObservationTokens,
    memory ? { maxSeqLen, reserve: memory.reserve, memoryTokens: memory.memoryTokens } : undefined,
  );
  let used = segments.reduce((n, s) => n + s.ids.length, 0);
  let firstTurn: number | null = null;
  for (const step of t.steps) {
    const turn = [givenSegment(tok, sp, 'act', sp.act, step.actionText)];
    if (step.probe) turn[0].untrained = true;
    if (step.observation !== null) turn.push(givenSegment(tok, sp, 'env', sp.obs, step.observation, maxObservationTokens));
    const n = turn.reduce((k, s) => k + s.ids.length, 0);
    firstTurn ??= n;
    if (used + n > maxSeqLen) break;
    segments.push(...turn);
    used += n;
  }
  if (segments.some((s) => s.role === 'act')) return { demo: { taskId: t.taskId, segments } };
  if (firstTurn === null) return { dropped: 'no act to learn (the transcript has no steps)' };
  return { dropped: `too long: the prompt and first turn take ${used + firstTurn} tokens > context ${maxSeqLen} (prompt ${used})` };
}

/** fitDemonstration's demonstration, or null when it was dropped. */
export function demoSegments(
  tok: PolicyTokenizer,
  sp: SpecialIds,
  t: DemoTranscript,
  maxObservationTokens: number,
  maxSeqLen: number,
): Demonstration | null {
  const fit = fitDemonstration(tok, sp, t, maxObservationTokens, maxSeqLen);
  return 'demo' in fit ? fit.demo : null;
}

/**
 * One line of a demonstrations file: a task of the env (by id) or a free instruction, and the turns:
 * each act's text in the action grammar and the observation that followed (null after the answer).
 */
const DemoLine = z.strictObject({
  taskId: z.string().min(1).optional(),
  instruction: z.string().min(1).optional(),
  initialObservation: z.string().default(''),
  steps: z.array(z.strictObject({ action: z.string().min(1), observation: z.string().nullable().default(null) })).min(1),
});

/** Demonstration files are read whole into memory; a few thousand trajectories fit well below this. */
export const MAX_DEMONSTRATIONS_BYTES = 64 * 1024 * 1024;
const DEMOS_FILE = 'sft.demonstrationsFile';

/**
 * The demonstrations file a run names, confined to `roots` (undefined: anywhere, for the command line)
 * and checked as a regular file under the size limit, without reading it. Returns the resolved path.
 */
export function checkDemonstrationsFile(file: string, roots?: readonly string[]): string {
  return checkUserFile(file, { what: DEMOS_FILE, roots, maxBytes: MAX_DEMONSTRATIONS_BYTES });
}

/** Reads a JSONL file of demonstrations; a bad line is an error naming the line and the problem, never quoting it. */
export function readDemonstrationFile(path: string, env: ToolEnv, toolSchemas: ToolSchemaMode | SystemTextOf): DemoTranscript[] {
  let text: string;
  try {
    text = readUserText(path, { what: DEMOS_FILE, maxBytes: MAX_DEMONSTRATIONS_BYTES }).text;
  } catch (e) {
    if (e instanceof UserPathError) throw new AlgorithmError(`cannot read the demonstrations: ${e.message}`);
    throw e;
  }
  const out: DemoTranscript[] = [];
  for (const entry of parseJsonLines(text, JSONL_LINE_BOUNDS, 'not JSON')) {
    const at = `${DEMOS_FILE} ${path}:${entry.line}`;
    if (entry.problem !== undefined) throw new AlgorithmError(`${at}: ${entry.problem}`);
    const r = DemoLine.safeParse(entry.value);
    if (!r.success)
      throw new AlgorithmError(`${at}: ${r.error.issues.map((x) => `${x.path.join('.') || '(line)'}: ${x.message}`).join('; ')}`);
    const line = r.data;
    let task: Task | undefined;
    if (line.taskId !== undefined) {
      try {
        task = env.task(line.taskId);
      } catch {
        throw new AlgorithmError(`${at}: environment '${env.id}' has no task '${line.taskId}'`);
      }
    }
    const instruction = line.instruction ?? task?.instruction;
    if (!instruction) throw new AlgorithmError(`${at}: give a taskId or an instruction`);
    out.push({
      taskId: task?.id ?? `file:${entry.line}`,
      instruction,
      system: systemTextOf(toolSchemas)(taskDescription(env.description, task), task?.tools ?? env.tools()),
      initialObservation: line.initialObservation,
      steps: line.steps.map((s) => ({ actionText: s.action, observation: s.observation })),
      envCalls: 0,
    });
  }
  if (!out.length) throw new AlgorithmError(`${DEMOS_FILE} ${path} has no demonstrations`);
  return out;
}

/** The demonstrations a run learns from: its file, or the env's expert on the training tasks. */
export async function runDemonstrations(
  env: ToolEnv,
  tasks: readonly Task[],
  sft: { demonstrations: 'expert' | 'file'; demonstrationsFile?: string; errorProbes?: number },
  toolSchemas: ToolSchemaMode | SystemTextOf,
  seed: number,
): Promise<DemoTranscript[]> {
  if (sft.demonstrations === 'expert') return expertTranscripts(env, tasks, toolSchemas, seed, sft.errorProbes);
  if (!sft.demonstrationsFile) throw new AlgorithmError("sft.demonstrations is 'file' but sft.demonstrationsFile is not set");
  return readDemonstrationFile(sft.demonstrationsFile, env, toolSchemas);
}
