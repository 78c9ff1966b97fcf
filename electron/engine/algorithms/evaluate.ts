/**
 * Evaluation is always in the real environment (algorithms.md "Evaluation"): held-out tasks, fixed
 * seeds, greedy unless told otherwise; optionally each task first gets private rehearsals and is
 * committed with their memory (test-time rehearsal).
 */
import { performance } from 'node:perf_hooks';
import type { CommitMode } from '../../contract';
import type { Task, ToolEnv } from '../envs/types';
import { isErrorObservation } from '../envs/error-observation';
import type { Policy } from './policy';
import { type RolloutResult, type RolloutSettings, runRollouts } from './rollout';
import type { Memory } from './memory';
import { type TestTimeOptions, commitWithMemory, rehearseAndCommit } from './test-time';

export interface EvaluationResult {
  tasks: number;
  /** Fraction of tasks whose real episode succeeded (env end-state check, no format error). */
  success: number;
  /** Mean checklist score. */
  score: number;
  /** Invalid actions / all actions. */
  invalidActionRate: number;
  envCallsPerTask: number;
  /** Real env calls answered with an error, over all real calls (0 with none). */
  callErrorRate: number;
  /** Tokens generated, committed runs and rehearsals together. */
  tokens: number;
  wallMs: number;
  results: RolloutResult[];
  /** With test-time rehearsal: each task's private rehearsals (aligned with `results`); else empty. */
  rehearsals: RolloutResult[][];
}

export async function evaluatePolicy(
  policy: Policy,
  env: ToolEnv,
  tasks: readonly Task[],
  settings: RolloutSettings,
  opts: {
    seed: number;
    label?: string;
    testTime?: TestTimeOptions;
    /** Memories chosen for some tasks (by task id): those are committed with them, no rehearsal; `commit` says how. */
    memories?: ReadonlyMap<string, { memory: Memory; text: string }>;
    commit?: CommitMode;
  },
): Promise<EvaluationResult> {
  const t0 = performance.now();
  const label = opts.label ?? 'eval';
  let results: RolloutResult[];
  let rehearsalTokens = 0;
  const rehearsals: RolloutResult[][] = [];
  if (opts.testTime || opts.memories?.size) {
    results = [];
    for (const task of tasks) {
      const given = opts.memories?.get(task.id);
      if (given || !opts.testTime) {
        const commit = opts.testTime?.commit ?? opts.commit ?? 'prompt';
        const [committed] = given
          ? [await commitWithMemory(policy, env, task, settings, given.memory, { commit, memoryText: given.text }, opts.seed, `${label}:${task.id}`)]
          : await runRollouts(policy, env, [{ task, mode: 'real' }], settings, opts.seed, `${label}:${task.id}`);
        rehearsals.push([]);
        results.push(committed!);
        continue;
      }
      const r = await rehearseAndCommit(policy, env, task, settings, opts.testTime, opts.seed, `${label}:${task.id}`);
      rehearsalTokens += r.rehearsals.reduce((n, x) => n + x.tokensGenerated, 0);
      rehearsals.push(r.rehearsals);
      results.push(r.committed);
    }
  } else {
    results = await runRollouts(
      policy,
      env,
      tasks.map((task) => ({ task, mode: 'real' as const })),
      settings,
      opts.seed,
      label,
    );
  }
  const n = Math.max(1, results.length);
  const actions = results.flatMap((r) => r.turns.map((t) => t.action));
  const realCalls = results.flatMap((r) => r.turns.filter((t) => t.real && t.action.kind === 'calls' && t.observation !== null));
  return {
    tasks: results.length,
    success: results.filter((r) => r.success).length / n,
    score: results.reduce((s, r) => s + r.reward, 0) / n,
    invalidActionRate: actions.length ? actions.filter((a) => a.kind === 'invalid').length / actions.length : 0,
    envCallsPerTask: results.reduce((s, r) => s + r.envCalls, 0) / n,
    callErrorRate: realCalls.length ? realCalls.filter((t) => isErrorObservation(t.observation!)).length / realCalls.length : 0,
    tokens: rehearsalTokens + results.reduce((s, r) => s + r.tokensGenerated, 0),
    wallMs: performance.now() - t0,
    results,
    rehearsals,
  };
}
