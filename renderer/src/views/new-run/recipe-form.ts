import { Algo, type ModelRef, type RunConfig } from '../../../../electron/contract';
import { configValues } from '../runs/duplicate';
import type { ConfigField, FormValues } from './config-form';

/**
 * The knobs New run shows before "Show every knob": what a person picks for a first run (where,
 * which model, which method, how long) and the few that decide whether it fits this machine. Every
 * other knob comes from the recipe; one that differs from it, or has an issue, is shown too.
 */
export const BASIC_KNOBS: ReadonlySet<string> = new Set([
  'name',
  'env',
  'model',
  'algo',
  'steps',
  'sft.steps',
  'seed',
  'provider',
  'evalEvery',
  'checkpointEvery',
  'rollout.k',
  'rollout.tasksPerStep',
  'optim.lr',
  'lora.rank',
]);

/** The model field's value (`tiny`, `imported:name`) as the contract's reference; null while empty. */
export function modelRefOf(value: FormValues[string] | undefined): ModelRef | null {
  const text = String(value ?? '').trim();
  if (!text) return null;
  return text.startsWith('imported:') ? { imported: text.slice('imported:'.length) } : { preset: text as 'nano' | 'tiny' | 'small' };
}

/** The method field's value as the contract's algo; undefined while empty or not a method. */
export function algoOf(value: FormValues[string] | undefined): Algo | undefined {
  const parsed = Algo.safeParse(String(value ?? '').trim());
  return parsed.success ? parsed.data : undefined;
}

/**
 * The form after a recipe arrives for the chosen environment and model: every knob from the recipe,
 * except the ones the person set by hand (kept as typed) and the run's name.
 */
export function applyRecipe(fields: readonly ConfigField[], recipe: RunConfig, current: FormValues, touched: ReadonlySet<string>): FormValues {
  const next = configValues(fields, recipe);
  for (const path of touched) if (path in current) next[path] = current[path]!;
  next.name = current.name ?? '';
  next.env = current.env ?? next.env!;
  next.model = current.model ?? next.model!;
  return next;
}

/** Whether a field shows in the basic view: a basic knob, one changed from the recipe, or one with an issue. */
export function showsInBasic(path: string, changed: ReadonlySet<string>, issue: string | undefined): boolean {
  return BASIC_KNOBS.has(path) || changed.has(path) || issue !== undefined;
}
