// The compute worker: ONNX Runtime's session.run blocks the thread that calls it, so all
// model work happens here and the engine's main thread stays free to answer queries.
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import { availableProviders } from '../../../native-models/runtime/session';
import type { ComputeOp, ComputeOps, ComputeRequest, ComputeResponse } from './protocol';

type OpTable = { [K in ComputeOp]: (input: ComputeOps[K]['input']) => Promise<ComputeOps[K]['output']> };

const ops: OpTable = {
  providers: async () => (await availableProviders()).map((r) => ({ provider: r.provider, available: r.available, detail: r.detail })),
  ortVersion: async () => createRequire(import.meta.url)('onnxruntime-node/package.json').version as string,
};

if (!parentPort) throw new Error('compute/worker must run as a worker thread');
const port = parentPort;

port.on('message', async (request: ComputeRequest) => {
  let response: ComputeResponse;
  try {
    const handler = ops[request.op] as (input: unknown) => Promise<unknown>;
    if (!handler) throw new Error(`unknown compute op: ${String(request.op)}`);
    response = { id: request.id, ok: true, value: await handler(request.input) };
  } catch (error) {
    response = { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(response);
});
