import type { Run } from '../../../../electron/contract';

export type RunAction = 'start' | 'cancel' | 'resume' | 'fork' | 'duplicate' | 'delete';

/**
 * What a run's status allows, mirroring the engine's rules (handlers/runs.ts): the engine
 * still has the last word and its refusal is shown, but the UI does not offer what will fail.
 * Resume needs a checkpoint too: the engine would accept one without and silently train from
 * step 0 again, which is a duplicate, not a resume — and a run that failed before its first
 * checkpoint usually fails the same way unless a knob changes, so it gets "Duplicate and edit".
 * Duplicate is offered on every run: it only opens New run pre-filled.
 */
export function availableActions(run: Pick<Run, 'status' | 'checkpoints'>): RunAction[] {
  const actions: RunAction[] = [];
  const stopped = run.status === 'interrupted' || run.status === 'failed' || run.status === 'cancelled';
  if (run.status === 'created') actions.push('start');
  if (run.status === 'queued' || run.status === 'running') actions.push('cancel');
  if (stopped && run.checkpoints.length > 0) actions.push('resume');
  if (run.checkpoints.length > 0) actions.push('fork');
  actions.push('duplicate');
  if (run.status !== 'queued' && run.status !== 'running') actions.push('delete');
  return actions;
}

/** The first line of a failure, for a table cell; the whole text stays on hover and behind "more". */
export function failureSummary(error: string, max = 90): string {
  const first = error.split('\n', 1)[0]!.trim();
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}
