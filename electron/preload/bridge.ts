import type { Result } from '../contract/errors';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../contract/wire';
import { methodNames } from '../contract/methods';

const INVOKE_CHANNEL = IPC_INVOKE_CHANNEL;
const EVENT_CHANNEL = IPC_EVENT_CHANNEL;

/** The two ipcRenderer calls the bridge needs (a test passes a fake). */
export interface IpcLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): void;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): void;
}

const known = new Set<string>(methodNames);

/**
 * What window.workbench exposes: invoke over the contract's method names only, and an
 * event subscription. Nothing else of ipcRenderer reaches the page.
 */
export function buildBridge(ipc: IpcLike) {
  return {
    methods: [...methodNames] as string[],
    invoke(method: string, input: unknown): Promise<Result<unknown>> {
      if (typeof method !== 'string' || !known.has(method)) {
        return Promise.resolve({ ok: false, error: { code: 'unknown_method', message: `unknown method: ${String(method).slice(0, 80)}` } });
      }
      return ipc.invoke(INVOKE_CHANNEL, method, input) as Promise<Result<unknown>>;
    },
    onEvent(listener: (event: string, payload: unknown) => void): () => void {
      const wrapped = (_event: unknown, name: unknown, payload: unknown) => listener(String(name), payload);
      ipc.on(EVENT_CHANNEL, wrapped as never);
      return () => ipc.removeListener(EVENT_CHANNEL, wrapped as never);
    },
  };
}
