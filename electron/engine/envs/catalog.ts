import { ContractError, type EnvDetail, type EnvsTestOutput, type EnvSummary } from '../../contract';
import { callTool, failureReason, runOracle } from './oracle';
import { envDetail, envSummary, getEnv, listEnvs, UnknownEnvError } from './registry';
import { SPLITS, type JsonValue } from './types';
import type { HomePaths } from '../home';
import { addUserEnv, readUserEnvs, removeUserEnv } from './user-envs';
import type { EnvCatalog, ToolCallResult } from '../system/services';

/**
 * The environment catalog the handlers see, over envs/registry. Environments are built on
 * first use (some load benchmark files or spawn servers) and kept for the engine's life.
 */
export function registryCatalog(paths: HomePaths): EnvCatalog {
  const load = async (id: string, options: Record<string, unknown> = {}) => {
    try {
      return await getEnv(id, options);
    } catch (error) {
      if (error instanceof UnknownEnvError) return null;
      throw new ContractError('internal', `environment "${id}" failed to load: ${(error as Error).message}`);
    }
  };
  return {
    ids: () => listEnvs().map((e) => e.id),
    async list(): Promise<EnvSummary[]> {
      // One environment that cannot be built lists as unavailable, with its reason; the others still list.
      return Promise.all(
        listEnvs().map(async (reg): Promise<EnvSummary> => {
          try {
            const env = await load(reg.id);
            if (env) return envSummary(env);
          } catch (error) {
            return unavailableSummary(reg, (error as Error).message);
          }
          return unavailableSummary(reg, 'not registered');
        }),
      );
    },
    async get(id): Promise<EnvDetail | null> {
      const env = await load(id);
      return env ? envDetail(env) : null;
    },
    async tasks(id, split, options) {
      const env = await load(id, options);
      if (!env) return null;
      return (split ? [split] : SPLITS).flatMap((s) => env.tasks(s));
    },
    async addMcp(entry, roots) {
      await addUserEnv(paths, entry, roots);
      const env = await load(entry.id);
      if (!env) throw new ContractError('internal', `environment ${entry.id} was added but cannot be loaded`);
      return envSummary(env);
    },
    remove: (id) => removeUserEnv(paths, id),
    problems: () => readUserEnvs(paths).problems.filter((p) => p.id === null).map((p) => p.message),
    async test(id, limit): Promise<EnvsTestOutput | null> {
      const started = performance.now();
      const env = await load(id);
      if (!env) return null;
      const split = {} as EnvsTestOutput['oracle']['split'];
      const failures: EnvsTestOutput['oracle']['failures'] = [];
      for (const s of SPLITS) {
        const result = await runOracle(env, s, { limit, spread: true });
        const of = env.tasks(s).length;
        split[s] = {
          passed: result.perTask.filter((r) => r.success).length,
          total: result.perTask.length,
          ...(result.unchecked ? { unchecked: result.unchecked } : {}),
          ...(of > result.perTask.length ? { of } : {}),
        };
        for (const r of result.perTask.filter((x) => !x.success && x.unchecked.length === 0)) {
          failures.push({ taskId: r.taskId, reason: failureReason(r) });
        }
      }
      return { id, tools: env.tools().map((t) => t.name), reset: env.resetDescription ?? 'no shared state between episodes', oracle: { split, failures }, wallMs: performance.now() - started };
    },
    async call(id, tool, args, taskId): Promise<ToolCallResult | null> {
      const env = await load(id);
      if (!env) return null;
      if (taskId !== undefined && !['train', 'heldout', 'ood'].some((s) => env.tasks(s as 'train').some((t) => t.id === taskId))) {
        throw new ContractError('not_found', `environment "${id}" has no task "${taskId}"`);
      }
      const started = performance.now();
      const result = await callTool(env, tool, args as { [key: string]: JsonValue }, { taskId });
      return { ...result, wallMs: performance.now() - started };
    },
  };
}

function unavailableSummary(reg: ReturnType<typeof listEnvs>[number], why: string): EnvSummary {
  return { id: reg.id, description: reg.description, track: reg.track, toolCount: 0, taskCounts: { train: 0, heldout: 0, ood: 0 }, unavailable: reg.unavailable ?? why };
}
