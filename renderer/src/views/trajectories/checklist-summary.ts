import type { MethodOutput } from '../../../../electron/contract';
import { formatPercent } from '../../format/units';

export type Checklist = NonNullable<MethodOutput<'trajectories.get'>['checklist']>;

/**
 * A checklist's summary line: the score over what could be checked, and how many requirements could
 * not be (NL assertions need an LLM judge, which the engine does not run). A checklist with nothing
 * checkable says so instead of showing its 0 % as a failure or, worse, a 100 % for doing nothing.
 */
export function checklistSummary(checklist: Checklist): string {
  const n = checklist.items.filter((i) => i.unchecked).length;
  if (checklist.unchecked) {
    return `Checklist unchecked: ${n === 1 ? 'its one requirement needs' : `all ${n} requirements need`} an LLM judge (reward 0, never a success)`;
  }
  const judge = n > 0 ? ` of the checkable items · ${n} unchecked: need${n === 1 ? 's' : ''} an LLM judge` : '';
  return `Checklist score ${formatPercent(checklist.score)}${judge}${checklist.formatError ? ' · format error (score 0)' : ''}`;
}
