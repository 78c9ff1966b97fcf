import { ContractError } from '../../contract';
import type { HandlerGroup } from './types';

export const envsHandlers: HandlerGroup<'envs.list' | 'envs.get' | 'envs.call'> = (s) => ({
  'envs.list': async () => ({ items: await s.envs.list() }),
  'envs.get': async ({ id }) => {
    const env = await s.envs.get(id);
    if (!env) throw new ContractError('not_found', `no environment "${id}"`);
    return env;
  },
  'envs.call': async ({ env, tool, arguments: args, taskId }) => {
    const result = await s.envs.call(env, tool, args, taskId);
    if (!result) throw new ContractError('not_found', `no environment "${env}"`);
    return result;
  },
});
