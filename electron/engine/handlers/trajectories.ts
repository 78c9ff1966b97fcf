import { ContractError } from '../../contract';
import type { HandlerGroup } from './types';

export const trajectoriesHandlers: HandlerGroup<'trajectories.list' | 'trajectories.get'> = (s) => ({
  'trajectories.list': (input) => s.store.rollouts.list(input),
  'trajectories.get': ({ id }) => {
    const rollout = s.store.rollouts.get(id);
    if (!rollout) throw new ContractError('not_found', `no rollout with id ${id}`);
    return rollout;
  },
});
