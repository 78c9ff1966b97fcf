import { ContractError } from '../../contract';
import type { HandlerGroup } from './types';

export const metricsHandlers: HandlerGroup<'metrics.keys' | 'metrics.query'> = (s) => {
  const requireRun = (id: string) => {
    if (!s.store.runs.get(id)) throw new ContractError('not_found', `no run with id ${id}`);
  };
  return {
    'metrics.keys': ({ id }) => {
      requireRun(id);
      return { keys: s.store.metrics.keys(id) };
    },
    'metrics.query': (input) => {
      requireRun(input.runId);
      return { runId: input.runId, series: s.store.metrics.query(input) };
    },
  };
};
