import { Worker } from 'node:worker_threads';
import { disableOrtTelemetry } from '../../../native-models/runtime/ort-env';
import type { ComputeOp, ComputeOps, ComputeRequest, ComputeResponse } from './protocol';

export class ComputeError extends Error {
  constructor(
    message: string,
    readonly cancelled = false,
    /** The worker-side error class (e.g. AlgorithmError for settings that cannot work). */
    readonly errorName?: string,
  ) {
    super(message);
    this.name = 'ComputeError';
  }
}

function workerUrl(): URL {
  // Under tsx (source tree) the worker is TypeScript and needs the tsx loader in its thread;
  // a bundled build (electron-vite) emits compute-worker.js beside this module.
  return import.meta.url.endsWith('.ts') ? new URL('./worker-entry.mjs', import.meta.url) : new URL('./compute-worker.js', import.meta.url);
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onEvent?: (event: unknown) => void;
}

/**
 * The engine's handle on its compute worker. Started lazily; if the worker dies, pending
 * calls fail with a clear error and the next call starts a fresh worker.
 */
export class ComputeClient {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** `home`: the data home whose user environments (MCP servers) the worker registers, as the engine does. */
  constructor(private readonly options: { home?: string } = {}) {}

  call<K extends ComputeOp>(op: K, input: ComputeOps[K]['input']): Promise<ComputeOps[K]['output']> {
    return this.stream(op, input, () => {});
  }

  /** A long op: events arrive through onEvent; aborting the signal asks the worker to stop. */
  stream<K extends ComputeOp>(op: K, input: ComputeOps[K]['input'], onEvent: (event: ComputeOps[K]['event']) => void, signal?: AbortSignal): Promise<ComputeOps[K]['output']> {
    const worker = this.ensure();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onEvent: onEvent as (e: unknown) => void });
      worker.ref(); // keep the process alive while work is in flight
      const cancel = () => worker.postMessage({ type: 'cancel', id } satisfies ComputeRequest);
      if (signal?.aborted) cancel();
      signal?.addEventListener('abort', cancel, { once: true });
      worker.postMessage({ type: 'request', id, op, input } satisfies ComputeRequest);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    // The worker's environments may hold server processes; ask it to stop them (briefly) before it goes.
    await Promise.race([this.call('closeEnvs', {}).catch(() => undefined), new Promise((r) => setTimeout(r, 5_000).unref())]);
    this.worker = null;
    await worker.terminate();
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    // The worker's ORT reads the process's real environment, which only this thread can set.
    disableOrtTelemetry();
    const worker = new Worker(workerUrl(), { workerData: { home: this.options.home ?? null } });
    worker.on('message', (message: ComputeResponse) => {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      if (message.type === 'event') {
        waiter.onEvent?.(message.event);
        return;
      }
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref(); // an idle worker must not keep a CLI process alive
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new ComputeError(message.error, message.cancelled, message.errorName));
    });
    const failAll = (reason: string) => {
      if (this.worker === worker) this.worker = null;
      for (const [id, waiter] of this.pending) {
        this.pending.delete(id);
        waiter.reject(new ComputeError(reason));
      }
    };
    worker.on('error', (error) => failAll(`compute worker crashed: ${error.message}`));
    worker.on('exit', (code) => failAll(`compute worker exited with code ${code}`));
    this.worker = worker;
    return worker;
  }
}
