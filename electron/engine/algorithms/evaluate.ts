/**
 * Evaluation is always in the real environment (algorithms.md "Evaluation"): held-out tasks, fixed
 * seeds, greedy unless told otherwise; optionally each task first gets private rehearsals and is
 * committed with their memory (test-time rehearsal).
 */
import { performance } from 'node:perf_hooks';
import type { Task, ToolEnv } from '../envs/types';
import type { Policy } from './policy';
import { type RolloutResult, type RolloutSettings, runRollouts } from './rollout';
import { type TestTimeOptions, rehearseAndCommit } from './test-time';

export interface EvaluationResult {
  tasks: number;
  /** Fraction of tasks whose real episode succeeded (env end-state check, no format error). */
  success: number;
  /** Mean checklist score. */
  score: number;
  /** Invalid actions / all actions. */
  invalidActionRate: number;
  envCallsPerTask: number;
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
  opts: { seed: number; label?: string; testTime?: TestTimeOptions },
): Promise<EvaluationResult> {
  const t0 = performance.now();
  const label = opts.label ?? 'eval';
  let results: RolloutResult[];
  let rehearsalTokens = 0;
  const rehearsals: RolloutResult[][] = [];
  if (opts.testTime) {
    results = [];
    for (const task of tasks) {
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
  return {
    tasks: results.length,
    success: results.filter((r) => r.success).length / n,
    score: results.reduce((s, r) => s + r.reward, 0) / n,
    invalidActionRate: actions.length ? actions.filter((a) => a.kind === 'invalid').length / actions.length : 0,
    envCallsPerTask: results.reduce((s, r) => s + r.envCalls, 0) / n,
    tokens: rehearsalTokens + results.reduce((s, r) => s + r.tokensGenerated, 0),
    wallMs: performance.now() - t0,
    results,
    rehearsals,
  };
}
