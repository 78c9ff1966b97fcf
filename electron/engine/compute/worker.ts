// The compute worker: ONNX Runtime's session.run blocks the thread that calls it, so all
// model work happens here and the engine's main thread stays free to answer queries.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { availableProviders } from '../../../native-models/runtime/session';
import type { ComputeOp, ComputeOps, ComputeRequest, ComputeResponse } from './protocol';

interface OpContext<K extends ComputeOp> {
  signal: AbortSignal;
  emit(event: ComputeOps[K]['event']): void;
}

type OpTable = { [K in ComputeOp]: (input: ComputeOps[K]['input'], ctx: OpContext<K>) => Promise<ComputeOps[K]['output']> };

/**
 * This thread has its own environment registry: register the data home's user environments in it
 * (the engine's loader, so both threads see the same ones), again before each job since the user
 * may have added or removed one meanwhile.
 */
async function userEnvsReady(): Promise<void> {
  const home = (workerData as { home?: string | null } | null)?.home;
  if (!home) return;
  const [{ loadUserEnvs }, { homePaths, homeWritable }, { setScratchRoot }, { recordServersUnder }] = await Promise.all([
    import('../envs/user-envs'),
    import('../home'),
    import('../envs/scratch'),
    import('../envs/mcp/server-records'),
  ]);
  const paths = homePaths(home);
  setScratchRoot(join(paths.home, 'tmp'));
  recordServersUnder(homeWritable(paths.home) ? paths.home : null);
  await loadUserEnvs(paths);
}

const ops: OpTable = {
  closeEnvs: async () => {
    await (await import('../envs/registry')).closeEnvs();
    return null;
  },
  providers: async () => (await availableProviders()).map((r) => ({ provider: r.provider, available: r.available, detail: r.detail })),
  ortVersion: async () => createRequire(import.meta.url)('onnxruntime-node/package.json').version as string,
  evaluate: async (input) => (await userEnvsReady(), (await import('./policy-ops')).evaluateOp(input)),
  rehearse: async (input) => (await userEnvsReady(), (await import('./policy-ops')).rehearseOp(input)),
  fit: async (input) => (await userEnvsReady(), (await import('./policy-ops')).fitOp(input)),
  commit: async (input) => (await userEnvsReady(), (await import('./policy-ops')).commitOp(input)),
  train: async (input, ctx) => {
    await userEnvsReady();
    // Loaded on first use: the algorithms pull in every environment and the model stack.
    const { runTraining } = await import('../algorithms/train');
    return runTraining(input.config, {
      runDir: input.runDir,
      modelsDir: input.modelsDir,
      resumeFromStep: input.resumeFromStep,
      resumeFromDir: input.resumeFromDir,
      initFromDir: input.initFromDir,
      signal: ctx.signal,
      onStep: (step) => ctx.emit({ type: 'step', ...step }),
      onLog: (level, message) => ctx.emit({ type: 'log', level, message }),
      onProgress: (fraction, phase) => ctx.emit({ type: 'progress', fraction, phase }),
    });
  },
};

if (!parentPort) throw new Error('compute/worker must run as a worker thread');
const port = parentPort;
const running = new Map<number, AbortController>();
const post = (message: ComputeResponse) => port.postMessage(message);

port.on('message', async (request: ComputeRequest) => {
  if (request.type === 'cancel') {
    running.get(request.id)?.abort(new Error('cancelled'));
    return;
  }
  const controller = new AbortController();
  running.set(request.id, controller);
  try {
    const handler = ops[request.op] as (input: unknown, ctx: OpContext<ComputeOp>) => Promise<unknown>;
    if (!handler) throw new Error(`unknown compute op: ${String(request.op)}`);
    const value = await handler(request.input, { signal: controller.signal, emit: (event) => post({ type: 'event', id: request.id, event }) });
    post({ type: 'result', id: request.id, ok: true, value });
  } catch (error) {
    post({
      type: 'result',
      id: request.id,
      ok: false,
      error: error instanceof Error ? error.message : String(error),
      errorName: error instanceof Error ? error.name : undefined,
      cancelled: controller.signal.aborted,
    });
  } finally {
    running.delete(request.id);
  }
});
