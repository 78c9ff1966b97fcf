import type { Result } from '../contract';

/** Messages between Electron main and the engine utility process. */
export type ToEngine = { type: 'request'; id: number; method: unknown; input: unknown };
export type FromEngine = { type: 'response'; id: number; result: Result<unknown> } | { type: 'event'; event: string; payload: unknown } | { type: 'ready' };

/**
 * Request/response bookkeeping over a message channel. When the engine dies, everything in
 * flight fails with `engine_unavailable` instead of hanging.
 */
export class EngineLink {
  private nextId = 1;
  private readonly pending = new Map<number, (result: Result<unknown>) => void>();

  constructor(private post: (message: ToEngine) => void) {}

  request(method: unknown, input: unknown): Promise<Result<unknown>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      try {
        this.post({ type: 'request', id, method, input });
      } catch (error) {
        this.pending.delete(id);
        resolve({ ok: false, error: { code: 'engine_unavailable', message: `the engine is not running: ${(error as Error).message}` } });
      }
    });
  }

  receive(message: FromEngine, onEvent: (event: string, payload: unknown) => void): void {
    if (message.type === 'response') {
      const resolve = this.pending.get(message.id);
      this.pending.delete(message.id);
      resolve?.(message.result);
    } else if (message.type === 'event') {
      onEvent(message.event, message.payload);
    }
  }

  /** The engine went away: fail what was waiting, and post to the new one from now on. */
  reset(post: (message: ToEngine) => void, reason: string): void {
    this.post = post;
    for (const [id, resolve] of this.pending) {
      this.pending.delete(id);
      resolve({ ok: false, error: { code: 'engine_unavailable', message: reason } });
    }
  }
}
