import { ContractError } from '../../contract';
import { envOptions } from '../algorithms/env-options';
import { rootsForTransport } from '../home/user-paths';
import type { HandlerGroup } from './types';

export const envsHandlers: HandlerGroup<'envs.ids' | 'envs.list' | 'envs.get' | 'envs.tasks' | 'envs.call' | 'envs.addMcp' | 'envs.remove' | 'envs.test'> = (s) => ({
  'envs.tasks': async ({ id, runId, split, search, limit, offset }) => {
    let options: Record<string, unknown> | undefined;
    if (runId !== undefined) {
      const run = s.store.runs.get(runId);
      if (!run) throw new ContractError('not_found', `no run with id ${runId}`);
      if (run.env !== id) throw new ContractError('invalid_input', `run ${runId} trains on ${run.env}, not ${id}`);
      options = envOptions(run.config);
    }
    const all = await s.envs.tasks(id, split, options);
    if (!all) throw new ContractError('not_found', `no environment "${id}"`);
    const needle = search?.toLowerCase();
    const matching = needle ? all.filter((t) => t.id.toLowerCase().includes(needle) || t.instruction.toLowerCase().includes(needle)) : all;
    return { items: matching.slice(offset, offset + limit), total: matching.length };
  },
  'envs.addMcp': async (input, ctx) => {
    // Files named from the workbench window must sit in the data home (quality.md: paths from the renderer);
    // the command line may name them anywhere. Either way they are copied into the home.
    if (!s.envs.addMcp) throw new ContractError('not_available', 'this engine has a fixed set of environments');
    return s.envs.addMcp(input, rootsForTransport(ctx.transport, s.paths.home));
  },
  'envs.remove': async ({ id }) => {
    if (!s.envs.remove) throw new ContractError('not_available', 'this engine has a fixed set of environments');
    // Its task file and episode folders are in use while a run trains or waits on it.
    const live = (['running', 'queued'] as const).flatMap((status) => s.store.runs.list({ status, limit: 1000, offset: 0 }).items).filter((r) => r.env === id);
    if (live.length) throw new ContractError('conflict', `run ${live[0].id} is ${live[0].status} on "${id}"; cancel it before removing the environment`);
    await s.envs.remove(id);
    return { ok: true as const };
  },
  'envs.test': async ({ id, limit }) => {
    if (!s.envs.test) throw new ContractError('not_available', 'this engine cannot test environments');
    const result = await s.envs.test(id, limit);
    if (!result) throw new ContractError('not_found', `no environment "${id}"`);
    return result;
  },
  'envs.ids': () => ({ ids: s.envs.ids() }),
  'envs.list': async () => {
    const problems = s.envs.problems?.() ?? [];
    return { items: await s.envs.list(), ...(problems.length ? { problems } : {}) };
  },
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
