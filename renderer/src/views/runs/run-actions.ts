import type { Run } from '../../../../electron/contract';

export type RunAction = 'start' | 'cancel' | 'resume' | 'fork' | 'delete';

/**
 * What a run's status allows, mirroring the engine's rules (handlers/runs.ts): the engine
 * still has the last word and its refusal is shown, but the UI does not offer what will fail.
 */
export function availableActions(run: Pick<Run, 'status' | 'checkpoints'>): RunAction[] {
  const actions: RunAction[] = [];
  if (run.status === 'created') actions.push('start');
  if (run.status === 'queued' || run.status === 'running') actions.push('cancel');
  if (run.status === 'interrupted' || run.status === 'failed' || run.status === 'cancelled') actions.push('resume');
  if (run.checkpoints.length > 0) actions.push('fork');
  if (run.status !== 'queued' && run.status !== 'running') actions.push('delete');
  return actions;
}
