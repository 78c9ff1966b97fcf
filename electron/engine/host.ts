import { createDispatcher, type EventName, type Handlers, type Result } from '../contract';
import { ComputeClient } from './compute/client';
import { EventBus } from './events';
import { registryCatalog } from './env-catalog';
import { envsHandlers } from './handlers/envs';
import { evalsHandlers } from './handlers/evals';
import { jobsHandlers } from './handlers/jobs';
import { memoriesHandlers } from './handlers/memories';
import { metricsHandlers } from './handlers/metrics';
import { loadSnippet, modelsHandlers } from './handlers/models';
import { runsHandlers } from './handlers/runs';
import { systemHandlers } from './handlers/system';
import { trajectoriesHandlers } from './handlers/trajectories';
import { ensureHome, resolveHome } from './home';
import { JobQueue } from './jobs/queue';
import { loadMcpServers } from './mcp-servers';
import type { EngineServices, EnvCatalog, RequestContext } from './services';
import { Store } from './store';

export interface EngineOptions {
  /** Data home; defaults to ENVACE_HOME or ~/.envace. */
  home?: string;
  /** Override the environment catalog (tests). */
  envs?: EnvCatalog;
  /** Where internal errors (bugs, not bad input) are reported. */
  onInternalError?: (method: string, error: unknown) => void;
}

export interface Engine {
  readonly services: EngineServices;
  /** Serve one request; never throws. */
  dispatch(method: unknown, input: unknown, ctx: RequestContext): Promise<Result<unknown>>;
  subscribe(listener: (event: EventName, payload: unknown) => void): () => void;
  close(): Promise<void>;
}

/** Compose the engine: store, job queue, compute worker, environments, handler table. */
export function createEngine(options: EngineOptions = {}): Engine {
  const paths = ensureHome(resolveHome(options.home));
  const store = Store.open(paths.db, loadSnippet);
  store.runs.markInterrupted();
  loadMcpServers(paths);
  const events = new EventBus();
  const jobs = new JobQueue((job) => events.emit('job.update', job));
  const compute = new ComputeClient();
  const services: EngineServices = { paths, store, jobs, compute, events, envs: options.envs ?? registryCatalog(paths) };

  const handlers: Handlers<RequestContext> = {
    ...systemHandlers(services),
    ...runsHandlers(services),
    ...metricsHandlers(services),
    ...trajectoriesHandlers(services),
    ...memoriesHandlers(services),
    ...envsHandlers(services),
    ...evalsHandlers(services),
    ...modelsHandlers(services),
    ...jobsHandlers(services),
  };
  const dispatch = createDispatcher<RequestContext>(handlers, {
    onInternalError: options.onInternalError ?? ((method, error) => console.error(`[engine] ${method}:`, error)),
  });

  let closed = false;
  return {
    services,
    dispatch,
    subscribe: (listener) => events.subscribe(listener),
    async close() {
      if (closed) return;
      closed = true;
      await jobs.shutdown();
      await compute.close();
      store.close();
    },
  };
}
