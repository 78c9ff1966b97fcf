import type { Result, Transport } from '../../../electron/contract';

/** What the preload script exposes on window.workbench (electron/preload). */
export interface PreloadBridge {
  invoke(method: string, input: unknown): Promise<Result<unknown>>;
  onEvent(listener: (event: string, payload: unknown) => void): () => void;
}

/** Desktop transport: the contract over Electron IPC through the preload bridge. */
export function createIpcTransport(bridge: PreloadBridge): Transport {
  return {
    request: (method, input) => bridge.invoke(method, input),
    subscribe: (listener) => bridge.onEvent(listener),
  };
}
