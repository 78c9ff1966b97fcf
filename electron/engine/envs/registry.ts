/**
 * The built-in environments, one line each. Construction is lazy (the module is imported and the
 * env built on first `getEnv`) so listing envs costs nothing and a broken env cannot break others.
 * Another env is added with one more line in BUILTIN_ENVS, or at run time with `registerEnv`.
 */
import { canonicalJson } from './tau2/db';
import { SPLITS, type Split, type ToolEnv, type ToolSpec } from './types';

export type EnvOptions = { [key: string]: unknown };

export interface EnvRegistration {
  id: string;
  description: string;
  track: ToolEnv['track'];
  /** Option names the env accepts (anything else is rejected before construction). */
  options: readonly string[];
  /** Set for a saved registration that cannot be used (a broken entry): why, in full. */
  unavailable?: string;
  create(options: EnvOptions): Promise<ToolEnv>;
}

export class UnknownEnvError extends Error {
  override name = 'UnknownEnvError';
}

export class EnvOptionsError extends Error {
  override name = 'EnvOptionsError';
}

const BUILTIN_ENVS: EnvRegistration[] = [
  {
    id: 'mock',
    description: "tau2's mock task-manager domain (10 tasks, the same ones in train and held-out: too few to split) for contract tests",
    track: 'scratch',
    options: [],
    create: async () => new (await import('./mock/env')).MockEnv(),
  },
  {
    id: 'retail',
    description: 'tau2 retail DB + 16 tools; generated look-ups, chains, writes, impossible requests',
    track: 'scratch',
    options: ['worldSize', 'worldSeed', 'seed', 'counts', 'worldMode', 'taskMix', 'layout'],
    create: async (o) => new (await import('./retail/env')).RetailEnv(o as import('./retail/env').RetailOptions),
  },
  {
    id: 'tau-retail',
    description: 'tau-bench v1 retail train tickets; tau2 retail tasks held out',
    track: 'pretrained',
    options: [],
    create: async () => new (await import('./tau-retail/env')).TauRetailEnv(),
  },
  {
    id: 'tau2-telecom',
    description: 'tau2 telecom in solo mode: carrier + phone tools, 114 tech-support tasks (train 74 / heldout 40)',
    track: 'pretrained',
    options: [],
    create: async () => new (await import('./telecom/env')).TelecomEnv(),
  },
  {
    id: 'household',
    description: 'seeded text household (ALFWorld-like): pick-and-place, clean/heat/cool, examine; two-object tasks ood',
    track: 'scratch',
    options: ['rooms', 'objects', 'tasksPerSplit', 'worldMode', 'taskMix'],
    create: async (o) => new (await import('./household/env')).HouseholdEnv(o as import('./household/env').HouseholdOptions),
  },
  {
    id: 'files',
    description: 'the real MCP filesystem server over a generated sandbox per episode: find, count, search, move, write',
    track: 'scratch',
    options: ['files', 'tasksPerSplit'],
    create: async (o) => (await import('./files/env')).FilesEnv.create(o as import('./files/env').FilesOptions),
  },
  {
    id: 'bfcl',
    description: 'BFCL v4 single-turn function calling; live_* train, non-live python categories held out',
    track: 'pretrained',
    options: [],
    create: async () => new (await import('./bfcl/env')).BfclEnv(),
  },
];

const registry = new Map<string, EnvRegistration>(BUILTIN_ENVS.map((r) => [r.id, r]));
const instances = new Map<string, Promise<ToolEnv>>();

/** Drop the built instances of `id` (or of every env), stopping the servers they hold. */
async function dropInstances(id: string | null): Promise<void> {
  const dropped: Array<Promise<ToolEnv>> = [];
  for (const [key, env] of [...instances]) {
    if (id !== null && !key.startsWith(`${id}:`)) continue;
    instances.delete(key);
    dropped.push(env);
  }
  await Promise.all(dropped.map(async (p) => (await p.catch(() => null))?.close?.().catch(() => undefined)));
}

/** Add (or replace) an environment, e.g. a user's MCP server. A replaced one's servers are stopped. */
export function registerEnv(reg: EnvRegistration): Promise<void> {
  registry.set(reg.id, reg);
  return dropInstances(reg.id);
}

/** Remove a run-time registration (a user's MCP server) and stop its servers; built-ins cannot be removed. */
export async function unregisterEnv(id: string): Promise<boolean> {
  if (BUILTIN_ENVS.some((r) => r.id === id)) return false;
  const had = registry.delete(id); // at once: nothing may build it while its servers stop
  await dropInstances(id);
  return had;
}

/** Stop every environment built so far (engine close): none may outlive the engine that started it. */
export function closeEnvs(): Promise<void> {
  return dropInstances(null);
}

export function isBuiltinEnv(id: string): boolean {
  return BUILTIN_ENVS.some((r) => r.id === id);
}

export function listEnvs(): Array<Pick<EnvRegistration, 'id' | 'description' | 'track' | 'options' | 'unavailable'>> {
  return [...registry.values()].map(({ id, description, track, options, unavailable }) => ({ id, description, track, options, ...(unavailable ? { unavailable } : {}) }));
}

/** The env with this id and options; one instance per (id, options), built on first use. */
export function getEnv(id: string, options: EnvOptions = {}): Promise<ToolEnv> {
  const reg = registry.get(id);
  if (!reg) return Promise.reject(new UnknownEnvError(`unknown environment '${id}' (known: ${[...registry.keys()].join(', ')})`));
  const unknown = Object.keys(options).filter((k) => !reg.options.includes(k));
  if (unknown.length) {
    return Promise.reject(
      new EnvOptionsError(
        `environment '${id}' has no option ${unknown.map((k) => `'${k}'`).join(', ')} (options: ${reg.options.join(', ') || 'none'})`,
      ),
    );
  }
  const key = `${id}:${canonicalJson(options)}`;
  let env = instances.get(key);
  if (!env) {
    env = reg.create(options);
    instances.set(key, env);
    // A failed construction is not cached, so fixing the cause (e.g. the data folder) is enough.
    env.catch(() => instances.delete(key));
  }
  return env;
}

/** Matches the contract's EnvSummary (electron/contract/envs.ts). */
export interface EnvSummary {
  id: string;
  description: string;
  track: ToolEnv['track'];
  toolCount: number;
  taskCounts: Record<Split, number>;
  reset?: string;
  unavailable?: string;
}

/** Matches the contract's EnvDetail: the summary plus every tool's schema. */
export interface EnvDetail extends EnvSummary {
  tools: ToolSpec[];
}

export function envSummary(env: ToolEnv): EnvSummary {
  const taskCounts = Object.fromEntries(SPLITS.map((s) => [s, env.tasks(s).length])) as Record<Split, number>;
  return { id: env.id, description: env.description, track: env.track, toolCount: env.tools().length, taskCounts, ...(env.resetDescription ? { reset: env.resetDescription } : {}) };
}

export function envDetail(env: ToolEnv): EnvDetail {
  const tools = env.tools().map(({ name, description, parameters }) => ({ name, description, parameters }));
  return { ...envSummary(env), tools };
}
