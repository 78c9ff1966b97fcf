// Worker-side operations that need a trained policy: evaluation, private rehearsals, and a
// committed run with a (possibly edited) memory. Each loads the run's checkpoint once and keeps it.
import { join } from 'node:path';
import type { CommitMode, RehearsalMemory, RobustnessTable, RunConfig } from '../../contract';
import {
  envOptions,
  evaluatePolicy,
  NativePolicy,
  runSessionOptions,
  privateRehearsals,
  chooseCommit,
  commitWithMemory,
  memoryFitFor,
  type CommitChoice,
  realityCheck,
  rolloutSettings,
  toNewRollout,
  withContext,
  type RolloutResult,
} from '../algorithms';
import { renderMemory } from '../algorithms/memory-text';
import { sampleTasks } from '../algorithms/eval-sample';
import { evaluateRobustness } from '../algorithms/robustness';
import { getEnv } from '../envs/registry';
import { loadModel } from '../models/registry';
import type { Split, Task, ToolEnv } from '../envs/types';
import type { NewRollout } from '../store';

export interface PolicySource {
  config: RunConfig;
  checkpointDir: string;
}

/** An imported model as imported (no run): `config.model` names it, `modelsDir` holds it. */
export interface ModelSource {
  config: RunConfig;
  modelsDir: string;
}

let cached: { dir: string; policy: NativePolicy } | null = null;

/** The run's policy at a checkpoint (any model: the config is stored with it); the last one loaded stays warm. */
async function policyAt(source: PolicySource | ModelSource): Promise<NativePolicy> {
  const imported = 'modelsDir' in source ? importedName(source.config) : undefined;
  const key = 'modelsDir' in source ? join(source.modelsDir, imported!) : source.checkpointDir;
  if (cached?.dir === key) return cached.policy;
  const opts = { seed: source.config.seed, optimizer: {}, knobs: {}, session: runSessionOptions(source.config) };
  // The imported model gains our role markers exactly as a run from it does (NativePolicy.fromPretrained).
  const policy = 'modelsDir' in source ? await NativePolicy.fromPretrained(withContext(loadModel(source.modelsDir, imported!), source.config.contextTokens), opts) : await NativePolicy.fromCheckpoint(source.checkpointDir, opts);
  if (cached) await cached.policy.release();
  cached = { dir: key, policy };
  return policy;
}

function importedName(config: RunConfig): string {
  if (!('imported' in config.model)) throw new Error('a model evaluation needs an imported model');
  return config.model.imported;
}

async function world(config: RunConfig, taskId?: string): Promise<{ env: ToolEnv; task?: Task }> {
  const env = await getEnv(config.env, envOptions(config));
  return { env, task: taskId === undefined ? undefined : env.task(taskId) };
}

export type EvaluateInput = (PolicySource | ModelSource) & EvaluateOptions;

export interface EvaluateOptions {
  split: Split;
  limit?: number;
  rehearsals: number;
  mode: 'parallel' | 'sequential';
  commit: CommitMode;
  seed: number;
  /** Stored memories to commit some tasks with (evals.run memories: stored), each with its id for the result. */
  memories?: Array<{ id: number; taskId: string; memory: RehearsalMemory; text: string }>;
  /** Filler sizes of a robustness evaluation (no rehearsals, no memories); absent: none. */
  robustness?: number[];
}

export interface EvaluateOutput {
  env: string;
  tasks: number;
  success: number;
  meanScore: number;
  invalidActionRate: number;
  envCallsPerTask: number;
  callErrorRate: number;
  tokensPerTask: number;
  wallMs: number;
  fidelity: number | null;
  perTask: Array<{ taskId: string; success: boolean; score: number; envCalls: number; memoryId?: number; envFailure?: string }>;
  rollouts: NewRollout[];
  robustness?: RobustnessTable;
}

export async function evaluateOp(input: EvaluateInput): Promise<EvaluateOutput> {
  const policy = await policyAt(input);
  const { env } = await world(input.config);
  // A limit takes a seeded sample stratified by family (algorithms/eval-sample.ts), never the first N.
  const tasks = sampleTasks(
    env.tasks(input.split).map((t) => env.task(t.id)),
    input.limit,
    input.seed,
  );
  if (!tasks.length) throw new Error(`environment ${env.id} has no ${input.split} tasks`);
  const settings = { ...rolloutSettings(input.config), temperature: 0 };
  const testTime =
    input.rehearsals > 0
      ? { rehearsals: input.rehearsals, mode: input.mode, commit: input.commit, temperature: input.config.rollout.temperature }
      : undefined;
  const given = new Map((input.memories ?? []).map((m) => [m.taskId, m]));
  // The robustness evaluation's unperturbed cell is the evaluation itself (same label and seeds).
  const robust = input.robustness
    ? await evaluateRobustness(policy, env, tasks, settings, {
        seed: input.seed,
        sizes: input.robustness,
        rehearsalTemperature: input.config.rollout.temperature,
      })
    : undefined;
  const result =
    robust?.base ??
    (await evaluatePolicy(policy, env, tasks, settings, { seed: input.seed, label: 'eval', testTime, memories: given, commit: input.commit }));
  const committedWithMemory = testTime !== undefined || given.size > 0;
  // World-model fidelity on these tasks: the evaluation's own first rehearsal of each, replayed for real.
  let fidelity: number | null = null;
  if (testTime) {
    const scores: number[] = [];
    for (const [i, task] of tasks.entries()) {
      const first = result.rehearsals[i]?.[0];
      if (!first) continue;
      const checks = await realityCheck(env, task, storedTurns(first));
      scores.push(...checks.map((c) => c.fidelity.similarity));
    }
    fidelity = scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null;
  }
  return {
    env: env.id,
    tasks: result.tasks,
    success: result.success,
    meanScore: result.score,
    invalidActionRate: result.invalidActionRate,
    envCallsPerTask: result.envCallsPerTask,
    callErrorRate: result.callErrorRate,
    tokensPerTask: result.tokens / Math.max(1, result.tasks),
    wallMs: result.wallMs,
    fidelity,
    perTask: result.results.map((r) => {
      const memoryId = given.get(r.task.id)?.id;
      return {
        taskId: r.task.id,
        success: r.success === true,
        score: r.reward,
        envCalls: r.envCalls,
        ...(memoryId !== undefined ? { memoryId } : {}),
        ...(r.envFailure !== null ? { envFailure: r.envFailure } : {}),
      };
    }),
    rollouts: result.results.map((r) =>
      toNewRollout(r, {
        runId: null,
        step: null,
        memoryId: given.get(r.task.id)?.id ?? null,
        ...(committedWithMemory ? { mode: 'test-time', purpose: 'commit' } : { mode: 'real' }),
      }),
    ),
    ...(robust ? { robustness: robust.robustness } : {}),
  };
}

/** The stored turn list of a rollout (what the reality check replays). */
function storedTurns(r: RolloutResult) {
  return toNewRollout(r, { runId: null, step: null }).turns.map((t, index) => ({ index, role: t.role, text: t.text }));
}

export interface RehearseInput extends PolicySource {
  taskId: string;
  rehearsals: number;
  mode: 'parallel' | 'sequential';
  temperature: number;
  seed: number;
}

export async function rehearseOp(input: RehearseInput): Promise<{ memory: RehearsalMemory; text: string; rollouts: NewRollout[] }> {
  const policy = await policyAt(input);
  const { env, task } = await world(input.config, input.taskId);
  const settings = rolloutSettings(input.config);
  const { memory, rehearsals } = await privateRehearsals(
    policy,
    env,
    task!,
    settings,
    { rehearsals: input.rehearsals, mode: input.mode, commit: 'prompt', temperature: input.temperature },
    input.seed,
    `rehearse:${task!.id}`,
  );
  return {
    memory,
    text: renderMemory(memory),
    rollouts: rehearsals.map((r) => toNewRollout(r, { runId: null, step: null, mode: 'test-time', purpose: 'rehearsal' })),
  };
}

export interface FitInput extends PolicySource {
  taskId: string;
  memory: RehearsalMemory;
  /** The memory's text as stored (a hand edit of the text is what the prompt gets). */
  memoryText: string;
}

export interface CommitInput extends FitInput {
  /** Absent: chosen to fit (chooseCommit). */
  commit?: CommitMode;
  seed: number;
}

/** The memory's tokens against the room this policy's prompt of the task leaves, and the commit mode that fits. */
export async function fitOp(input: FitInput): Promise<CommitChoice> {
  const policy = await policyAt(input);
  const { env, task } = await world(input.config, input.taskId);
  return chooseCommit(memoryFitFor(policy, env, task!, commitSettings(input.config), input.memoryText), input.memory.consensus.plan.length);
}

const commitSettings = (config: RunConfig) => ({ ...rolloutSettings(config), temperature: 0 });

export async function commitOp(input: CommitInput): Promise<{
  rollout: NewRollout;
  reward: number;
  success: boolean;
  envCalls: number;
  commit: CommitMode;
  fellBackAtTurn: number | null;
  memoryTokens: { total: number; kept: number };
}> {
  const policy = await policyAt(input);
  const { env, task } = await world(input.config, input.taskId);
  const settings = commitSettings(input.config);
  const commit = input.commit ?? chooseCommit(memoryFitFor(policy, env, task!, settings, input.memoryText), input.memory.consensus.plan.length).commit;
  const committed = await commitWithMemory(policy, env, task!, settings, input.memory, { commit, memoryText: input.memoryText }, input.seed, `commit:${task!.id}`);
  return {
    rollout: toNewRollout(committed, { runId: null, step: null, mode: 'test-time', purpose: 'commit' }),
    reward: committed.reward,
    success: committed.success === true,
    envCalls: committed.envCalls,
    commit,
    fellBackAtTurn: commit === 'plan' ? divergence(committed, input.memory) : null,
    memoryTokens: memoryFit(policy, input.memoryText ?? renderMemory(input.memory), committed),
  };
}

/** How much of the memory the committed prompt held (its block is cut to the room the context leaves). */
function memoryFit(policy: NativePolicy, text: string, committed: RolloutResult): { total: number; kept: number } {
  const block = committed.segments.find((s) => s.role === 'memory');
  const total = policy.tokenizer.encode(text, { parseSpecial: false }).length;
  return { total, kept: block ? block.ids.length - block.lead - block.tail : 0 };
}

/** The first turn where the committed run stopped following the consensus plan; null if it never did. */
export function divergence(r: RolloutResult, memory: RehearsalMemory): number | null {
  const plan = memory.consensus.plan;
  for (let i = 0; i < plan.length; i++) {
    const action = r.turns[i]?.action;
    const call = action?.kind === 'calls' && action.calls.length === 1 ? action.calls[0] : null;
    if (!call || call.name !== plan[i].name || JSON.stringify(call.arguments) !== JSON.stringify(plan[i].arguments)) return i;
  }
  return r.turns.length > plan.length ? plan.length : null;
}
