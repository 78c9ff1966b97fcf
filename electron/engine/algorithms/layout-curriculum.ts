/**
 * The layout curriculum (issue 21, "content-based copying"): with `layout: 'varied'` and
 * `sft.fixedLayoutSteps` N, SFT's first N steps show the same tasks in the fixed template, then
 * (over `sft.layoutRampSteps`) ever more rows in their varied form, until every row is varied.
 *
 * Why two renderings of one task rather than varied text from step 1: from scratch, two-layer tiny
 * copied nothing on varied text in 500 steps (its loss stayed at the copy-nothing level), while the
 * fixed template has a shortcut — the id at a fixed offset — learned in ~250 steps. From that
 * checkpoint, varied text turned the offset copy into a copy by content (README "Learning to
 * generalise": 0 % → 36 % in 500 varied steps, within 5 points under 16 inserted tokens). This puts
 * the two runs of that finding into one.
 *
 * The rows are chosen per (seed, step), so a resumed run trains what the uninterrupted one did.
 */
import type { RunConfig } from '../../contract';
import { getEnv } from '../envs/registry';
import type { Task } from '../envs/types';
import { Rng, deriveSeed } from '../random';
import { type DemoTranscript, type SystemTextOf, runDemonstrations } from './demos';
import { envOptions } from './env-options';
import type { ToolSchemaMode } from './layout';

type CurriculumKnobs = Pick<RunConfig['sft'], 'fixedLayoutSteps' | 'layoutRampSteps'>;

/** Why a config cannot use the curriculum, or undefined when it can (or does not ask for it). */
export function layoutCurriculumProblem(config: Pick<RunConfig, 'layout' | 'env'> & { sft: CurriculumKnobs & Pick<RunConfig['sft'], 'demonstrations'> }): string | undefined {
  if (!usesLayoutCurriculum(config)) return undefined;
  if (config.env !== 'retail') return `sft.fixedLayoutSteps / sft.layoutRampSteps need an env with layouts (retail), not '${config.env}': set both to 0`;
  if (config.sft.demonstrations !== 'expert')
    return "sft.fixedLayoutSteps / sft.layoutRampSteps show the expert's demonstrations in two layouts; a demonstrations file has one: set both to 0";
  if (config.layout !== 'varied')
    return `sft.fixedLayoutSteps / sft.layoutRampSteps move SFT from the fixed template to varied layouts, but layout is '${config.layout}': set layout to varied, or both knobs to 0`;
  return undefined;
}

/** Whether the config asks for the curriculum at all. */
export function usesLayoutCurriculum(config: { sft: CurriculumKnobs }): boolean {
  return config.sft.fixedLayoutSteps > 0 || config.sft.layoutRampSteps > 0;
}

/**
 * The expert's demonstrations of `tasks` in the fixed template: the same world options with the
 * fixed layout, which draws the same tasks (ids, entities, calls, answers) and writes them in the
 * family's one phrasing and field order.
 */
export async function fixedLayoutTranscripts(config: RunConfig, tasks: readonly Task[], toolSchemas: ToolSchemaMode | SystemTextOf): Promise<DemoTranscript[]> {
  const { layout: _varied, ...options } = envOptions(config);
  const fixedEnv = await getEnv(config.env, options);
  return runDemonstrations(fixedEnv, tasks.map((t) => fixedEnv.task(t.id)), config.sft, toolSchemas, config.seed);
}

/** The share of a step's rows shown in their varied layout: 0 through `fixedLayoutSteps`, then a linear ramp to 1. */
export function variedShare(sft: CurriculumKnobs, step: number): number {
  if (sft.fixedLayoutSteps === 0 && sft.layoutRampSteps === 0) return 1;
  const past = step - sft.fixedLayoutSteps;
  if (past <= 0) return 0;
  if (sft.layoutRampSteps === 0) return 1;
  return Math.min(1, past / sft.layoutRampSteps);
}

/** For each of the step's `rows`, whether it is shown in the fixed template: a function of (seed, step). */
export function fixedLayoutRows(sft: CurriculumKnobs, seed: number, step: number, rows: number): boolean[] {
  const share = variedShare(sft, step);
  if (share >= 1) return Array.from({ length: rows }, () => false);
  if (share <= 0) return Array.from({ length: rows }, () => true);
  const rng = new Rng(deriveSeed(seed, 'sft-layout', step));
  return Array.from({ length: rows }, () => rng.next() >= share);
}

/**
 * The step's batch with its fixed-layout rows swapped for the same task in the fixed template
 * (`fixed`, by task id). A task whose fixed rendering did not fit the context keeps its varied one.
 */
export function withLayoutCurriculum<T extends { taskId: string }>(
  sft: CurriculumKnobs,
  seed: number,
  step: number,
  batch: readonly T[],
  fixed: ReadonlyMap<string, T>,
): { batch: T[]; fixedRows: number } {
  const plan = fixedLayoutRows(sft, seed, step, batch.length);
  let fixedRows = 0;
  const out = batch.map((d, i) => {
    const f = plan[i] ? fixed.get(d.taskId) : undefined;
    if (!f) return d;
    fixedRows++;
    return f;
  });
  return { batch: out, fixedRows };
}
