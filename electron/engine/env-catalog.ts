import { ContractError, type EnvDetail, type EnvSummary } from '../contract';
import { callTool } from './envs/oracle';
import { envDetail, envSummary, getEnv, listEnvs, UnknownEnvError } from './envs/registry';
import { SPLITS, type JsonValue } from './envs/types';
import type { HomePaths } from './home';
import { addMcpServer } from './mcp-servers';
import type { EnvCatalog, ToolCallResult } from './services';

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
      const envs = await Promise.all(listEnvs().map((e) => load(e.id)));
      return envs.filter((e) => e !== null).map((e) => envSummary(e));
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
    async addMcp(entry) {
      await addMcpServer(paths, entry);
      const env = await load(entry.id);
      if (!env) throw new ContractError('internal', `environment ${entry.id} was added but cannot be loaded`);
      return envSummary(env);
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
