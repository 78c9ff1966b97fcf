/**
 * Robustness evaluation (issue 21): the same held-out tasks, seeds and greedy decoding under prompt
 * perturbations that leave the task unchanged. A policy that finds the entity in its context keeps
 * its success; one that copies from fixed token positions of one template loses it as soon as the
 * text before (or between) the positions it copies from moves.
 *   filler  n neutral tokens at the end of the system text, after the instruction, or in a
 *           `<|memory|>` block (the shape test-time rehearsal gives the prompt)
 *   memory  a memory built from one real private rehearsal of the task, committed in the prompt
 * Every cell runs through evaluatePolicy and the rollout's own prompt rendering (settings.insertion).
 */
import type { Task, ToolEnv } from '../envs/types';
import { deriveSeed, Rng } from '../random';
import { AlgorithmError } from './errors';
import { type EvaluationResult, evaluatePolicy } from './evaluate';
import type { PolicyTokenizer, PromptInsertion } from './layout';
import type { Policy } from './policy';
import type { RolloutSettings } from './rollout';

export const ROBUSTNESS_SIZES = [1, 4, 16, 64] as const;
/** The bar: no perturbation may cost more than 5 points of success. */
export const ROBUSTNESS_TOLERANCE = 0.05;

/**
 * Filler words: ordinary lower-case English with no digits, ids, tool or field names, so the filler
 * cannot be mistaken for an entity or an instruction and says nothing about the task. Special tokens
 * would test a different thing (a broken episode layout), not whether the entity is found by content.
 */
export const FILLER_WORDS: readonly string[] = (
  'the and of to in is that for it as with was on be at by this had not are but from or have an they which one you were all we when ' +
  'there can more if no out so said what up about into than them only other new some could time these two may then first any like now ' +
  'such make over also back after good well way'
).split(' ');

/** Exactly `n` ids of filler words drawn with `seed` (the last word may be cut to make the count exact). */
export function fillerIds(tok: PolicyTokenizer, n: number, seed: number): number[] {
  const rng = new Rng(seed);
  const ids: number[] = [];
  while (ids.length < n) ids.push(...tok.encode(` ${rng.pick(FILLER_WORDS)}`, { parseSpecial: false }));
  return ids.slice(0, n);
}

export type Perturbation = 'none' | 'filler' | 'memory';

export interface RobustnessCell {
  perturbation: Perturbation;
  where: PromptInsertion['where'] | null;
  /** Tokens inserted (filler), or the mean memory block length (memory). */
  tokens: number;
  success: number;
  /** success − the unperturbed success (same tasks, same seeds). */
  delta: number;
  envCallsPerTask: number;
  invalidActionRate: number;
}

export interface RobustnessResult {
  cells: RobustnessCell[];
  /** The largest drop of success below the unperturbed one (0 when nothing dropped). */
  worstDrop: number;
  tolerance: number;
  /** Every perturbed cell within `tolerance` below the unperturbed success. */
  passed: boolean;
}

export interface RobustnessOptions {
  seed: number;
  sizes?: readonly number[];
  /** Sampling temperature of the private rehearsal behind the memory cell. */
  rehearsalTemperature: number;
  /** Leave out the memory cell (its rehearsal costs a second generation per task). */
  memory?: boolean;
}

/** Where filler goes: after the system text, after the instruction, inside an (otherwise empty) memory block. */
const FILLER_SITES = ['system', 'instruction', 'memory'] as const;

/** The evaluations a robustness table adds to its unperturbed one: a filler cell per site and size, and the memory cell (one rehearsal first). */
export function robustnessCells(sizes: readonly number[]): { plain: number; rehearsed: number } {
  return { plain: FILLER_SITES.length * new Set(sizes.filter((n) => n > 0)).size, rehearsed: 1 };
}

/** The unperturbed evaluation and every perturbation of it, paired: same tasks, same label and seeds. */
export async function evaluateRobustness(
  policy: Policy,
  env: ToolEnv,
  tasks: readonly Task[],
  settings: RolloutSettings,
  o: RobustnessOptions,
): Promise<{ base: EvaluationResult; robustness: RobustnessResult }> {
  const sizes = [...new Set(o.sizes ?? ROBUSTNESS_SIZES)].filter((n) => n > 0).sort((a, b) => a - b);
  const run = (s: RolloutSettings, extra: Parameters<typeof evaluatePolicy>[4] = { seed: o.seed }) =>
    evaluatePolicy(policy, env, tasks, s, { ...extra, seed: o.seed, label: 'eval' }).catch((e: Error) => {
      // A prompt the perturbation pushed past the context: say which cell, the rest is the rollout's message.
      const what = s.insertion
        ? `${s.insertion.ids.length} filler tokens (${s.insertion.where})`
        : extra.testTime
          ? 'the rehearsal memory'
          : 'no perturbation';
      throw e instanceof AlgorithmError ? new AlgorithmError(`robustness evaluation with ${what}: ${e.message}`) : e;
    });
  const base = await run(settings);
  const cell = (perturbation: Perturbation, where: RobustnessCell['where'], tokens: number, r: EvaluationResult): RobustnessCell => ({
    perturbation,
    where,
    tokens,
    success: r.success,
    delta: r.success - base.success,
    envCallsPerTask: r.envCallsPerTask,
    invalidActionRate: r.invalidActionRate,
  });
  const cells = [cell('none', null, 0, base)];
  for (const where of FILLER_SITES)
    for (const n of sizes) {
      // The same filler in every task of a cell and across sites: only where it sits differs.
      const ids = fillerIds(policy.tokenizer, n, deriveSeed(o.seed, 'robustness', n));
      cells.push(cell('filler', where, n, await run({ ...settings, insertion: { where, ids } })));
    }
  if (o.memory !== false) {
    const r = await run(settings, {
      seed: o.seed,
      testTime: { rehearsals: 1, mode: 'parallel', commit: 'prompt', temperature: o.rehearsalTemperature },
    });
    const blocks = r.results.map((x) => x.segments.find((s) => s.role === 'memory')).filter((s) => s !== undefined);
    const tokens = blocks.length ? blocks.reduce((n, s) => n + s.ids.length - s.lead - s.tail, 0) / blocks.length : 0;
    cells.push(cell('memory', 'memory', tokens, r));
  }
  const worstDrop = Math.max(0, ...cells.map((c) => -c.delta));
  // A drop of exactly the tolerance passes; float noise of the subtraction must not fail it.
  return { base, robustness: { cells, worstDrop, tolerance: ROBUSTNESS_TOLERANCE, passed: worstDrop <= ROBUSTNESS_TOLERANCE + 1e-9 } };
}
