import path from 'node:path';
import { createDispatcher, methods, type EventName, type Handlers, type MethodName, type Result } from '../contract';
import { recoverAtomicLeftovers } from '../../native-models/io/atomic';
import { valueBoundsProblem } from '../../native-models/io/bounded-json';
import { ComputeClient } from './compute/client';
import { EventBus } from './system/events';
import { registryCatalog } from './envs/catalog';
import { closeEnvs } from './envs/registry';
import { reapLeftoverServers, recordServersUnder } from './envs/mcp/server-records';
import { setScratchRoot } from './envs/scratch';
import { envsHandlers } from './handlers/envs';
import { evalsHandlers } from './handlers/evals';
import { jobsHandlers } from './handlers/jobs';
import { memoriesHandlers } from './handlers/memories';
import { metricsHandlers } from './handlers/metrics';
import { loadSnippet, modelsHandlers } from './handlers/models';
import { runsHandlers } from './handlers/runs';
import { settingsHandlers } from './handlers/settings';
import { systemHandlers } from './handlers/system';
import { trajectoriesHandlers } from './handlers/trajectories';
import { ensureHome, homeWritable, resolveHome } from './home';
import { describeOwner, HomeLease } from './home/lease';
import { JobQueue } from './jobs/queue';
import { loadUserEnvs, tidyUserEnvLeftovers } from './envs/user-envs';
import type { EngineServices, EnvCatalog, RequestContext } from './system/services';
import { Store } from './store';

export interface EngineOptions {
  /** Data home; defaults to ENVACE_HOME or ~/.envace. */
  home?: string;
  /** Override the environment catalog (tests). */
  envs?: EnvCatalog;
  /** What this engine is, in words, for the lock other engines read ("envace serve", "the desktop app"). */
  label?: string;
  /** Where internal errors (bugs, not bad input) are reported. */
  onInternalError?: (method: string, error: unknown) => void;
}

export interface Engine {
  readonly services: EngineServices;
  /** Serve one request; never throws. */
  dispatch(method: unknown, input: unknown, ctx: RequestContext): Promise<Result<unknown>>;
  subscribe(listener: (event: EventName, payload: unknown) => void): () => void;
  /** Whether this engine owns its data home; otherwise it is attached read-only (home/lease.ts). */
  readonly writable: boolean;
  close(): Promise<void>;
}

/** "envace train", "envace serve", "the desktop app": what another engine's refusal names. */
function processLabel(): string {
  if (process.versions.electron) return 'the EnvACE desktop app';
  const script = (process.argv[1] ?? 'node').split(/[\\/]/).pop()!.replace(/\.m?[jt]s$/, '');
  const words = process.argv.slice(2).filter((a) => !a.startsWith('-')).slice(0, 2);
  return [script, ...words].join(' ');
}

/** Compose the engine: store, job queue, compute worker, environments, handler table. */
export function createEngine(options: EngineOptions = {}): Engine {
  const paths = ensureHome(resolveHome(options.home));
  setScratchRoot(path.join(paths.home, 'tmp'));
  const lease = new HomeLease(paths.home, options.label ?? processLabel());
  // A home on a read-only mount is read as it is: lists, metrics and exports to elsewhere work.
  const readOnlyMount = !homeWritable(paths.home);
  // Every engine records the MCP server groups it spawns, so that the next owner can stop those of
  // one killed outright (envs/mcp/server-records.ts).
  recordServersUnder(readOnlyMount ? null : paths.home);
  const owner = !readOnlyMount && lease.tryAcquire();
  /** Stopping what killed engines left running; close waits for it. */
  const reaping: Promise<unknown>[] = [];
  // Only the owner migrates and marks runs interrupted: it holds the lease, so the engine that
  // ran them is gone. A read-only engine must not touch runs another engine is training. Every
  // write checks the lease first, so one that was lost (or never held) stops the write.
  const store = Store.open(paths.db, loadSnippet, { migrate: owner, readOnly: readOnlyMount, beforeWrite: () => lease.assertOwner() });
  /** What only the owner may do, once it holds the lease: the engine before it is gone. */
  const takeOwnership = () => {
    store.runs.markInterrupted();
    // An export killed mid-write leaves a temp folder under a timestamped name no later export reuses,
    // or (mid-swap) its record pointing at a folder still under its temporary name: the engine that
    // wrote it is gone, so this is the one place to tidy them.
    try {
      recoverAtomicLeftovers(paths.exports);
    } catch (error) {
      console.error('[engine] could not tidy interrupted exports:', error);
    }
    // Likewise a registration or an episode killed mid-way, and a registry write cut short.
    try {
      recoverAtomicLeftovers(paths.home);
      tidyUserEnvLeftovers(paths);
    } catch (error) {
      console.error('[engine] could not tidy what a killed process left in the data home:', error);
    }
    // MCP servers a killed engine left running (a server that ignores EOF outlives it).
    reaping.push(reapLeftoverServers(paths.home).catch((error: unknown) => console.error('[engine] could not stop MCP servers a killed engine left running:', error)));
  };
  if (owner) takeOwnership();
  // Registration itself is synchronous; the promise only stops servers of replaced entries.
  void loadUserEnvs(paths).catch((error: unknown) => console.error('[engine] user environments:', error));
  const events = new EventBus();
  const jobs = new JobQueue((job) => events.emit('job.update', job));
  const compute = new ComputeClient({ home: paths.home });
  /** Why a write is refused here, in words a person can act on. */
  const readOnlyWhy = (method: string): string => {
    const unusable = readOnlyMount ? 'it is on a read-only file system' : lease.unusableReason;
    if (unusable) return `the data home ${paths.home} is read-only: ${unusable}. Lists, metrics and exports to another folder work; ${method} is refused.`;
    const owner = lease.currentOwner();
    const holder = owner ? describeOwner(owner) : 'another engine';
    return `the data home ${paths.home} is in use by ${holder}; this engine opened it read-only, so ${method} is refused. Use that process (or its web mode), or stop it first (\`npx envace home unlock\` says what holds it).`;
  };
  const homeAccess = () => {
    if (readOnlyMount) return { writable: false, owner: null };
    const other = lease.currentOwner();
    // With the owner gone, the first write takes the home over, so it counts as writable.
    return { writable: lease.isOwner || other === null, owner: other ? describeOwner(other) : null };
  };
  const services: EngineServices = { paths, store, jobs, compute, events, envs: options.envs ?? registryCatalog(paths), homeAccess };

  const handlers: Handlers<RequestContext> = {
    ...systemHandlers(services),
    ...settingsHandlers(services),
    ...runsHandlers(services),
    ...metricsHandlers(services),
    ...trajectoriesHandlers(services),
    ...memoriesHandlers(services),
    ...envsHandlers(services),
    ...evalsHandlers(services),
    ...modelsHandlers(services),
    ...jobsHandlers(services),
  };
  const dispatchAny = createDispatcher<RequestContext>(handlers, {
    // Size and depth checked by a loop before zod recurses into a payload (a 3 KB frame nested
    // 1,500 deep overflowed its stack).
    inputProblem: (input) => valueBoundsProblem(input),
    onInternalError: options.onInternalError ?? ((method, error) => console.error(`[engine] ${method}:`, error)),
  });

  /** A read-only engine takes the home over at its first request once the owner has gone. */
  let closed = false;
  const mayWrite = (): boolean => {
    if (lease.isOwner) return true;
    if (closed || readOnlyMount || !lease.tryAcquire()) return false;
    store.migrate();
    takeOwnership();
    return true;
  };
  const dispatch: Engine['dispatch'] = async (method, input, ctx) => {
    const spec = typeof method === 'string' && Object.prototype.hasOwnProperty.call(methods, method) ? methods[method as MethodName] : null;
    // Every request of a read-only engine checks for a departed owner, so that reads, too, see
    // its runs as interrupted from the moment it is gone.
    let writable: boolean;
    try {
      writable = mayWrite();
    } catch (error) {
      return { ok: false, error: { code: 'internal', message: `could not take over the data home ${paths.home}: ${(error as Error).message}` } };
    }
    if (spec?.effect === 'writes' && !writable) return { ok: false, error: { code: 'conflict', message: readOnlyWhy(String(method)) } };
    return dispatchAny(method, input, ctx);
  };

  return {
    services,
    dispatch,
    subscribe: (listener) => events.subscribe(listener),
    get writable() {
      return lease.isOwner;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(reaping);
      await jobs.shutdown();
      // Servers of user MCP environments (and the files env) are child processes: stop them, or
      // they keep the process alive after SIGTERM.
      await closeEnvs();
      await compute.close();
      store.close();
      lease.release();
    },
  };
}
