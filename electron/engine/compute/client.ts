import { Worker } from 'node:worker_threads';
import type { ComputeOp, ComputeOps, ComputeRequest, ComputeResponse } from './protocol';

export class ComputeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ComputeError';
  }
}

function workerUrl(): URL {
  // Under tsx (source tree) the worker is TypeScript and needs the tsx loader in its thread;
  // a bundled build (electron-vite) emits compute-worker.js beside this module.
  return import.meta.url.endsWith('.ts') ? new URL('./worker-entry.mjs', import.meta.url) : new URL('./compute-worker.js', import.meta.url);
}

/**
 * The engine's handle on its compute worker. Started lazily; if the worker dies, pending
 * calls fail with a clear error and the next call starts a fresh worker.
 */
export class ComputeClient {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  call<K extends ComputeOp>(op: K, input: ComputeOps[K]['input']): Promise<ComputeOps[K]['output']> {
    const worker = this.ensure();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ id, op, input } satisfies ComputeRequest);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(workerUrl());
    worker.unref(); // an idle worker must not keep a CLI process alive
    worker.on('message', (response: ComputeResponse) => {
      const waiter = this.pending.get(response.id);
      if (!waiter) return;
      this.pending.delete(response.id);
      if (response.ok) waiter.resolve(response.value);
      else waiter.reject(new ComputeError(response.error));
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
