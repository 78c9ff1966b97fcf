import type { WebSocketTransport } from '../../renderer/src/api/websocket-transport';
import { ContractError, type EventName, type EventPayload, type MethodName, type WorkbenchApi } from '../../electron/contract';

type Handler = (input: unknown) => unknown;

/**
 * A WorkbenchApi for component tests: answers from a table of handlers (a missing one answers
 * not_available, as the engine does for parts that have not landed), records every call, and
 * lets the test push events.
 */
export function fakeApi(handlers: Partial<Record<MethodName, Handler>>) {
  const calls: Array<{ method: MethodName; input: unknown }> = [];
  const listeners = new Set<(event: EventName, payload: unknown) => void>();
  const api: WorkbenchApi = {
    async call(method, ...rest) {
      const input = rest[0] ?? {};
      calls.push({ method, input });
      const handler = handlers[method];
      if (!handler) throw new ContractError('not_available', `${method} is not in this fake`);
      return (await handler(input)) as never;
    },
    on(event, listener) {
      const wrapped = (name: EventName, payload: unknown) => name === event && listener(payload as never);
      listeners.add(wrapped);
      return () => listeners.delete(wrapped);
    },
  };
  const emit = <E extends EventName>(event: E, payload: EventPayload<E>) => {
    for (const listener of listeners) listener(event, payload);
  };
  return { api, calls, emit, listenerCount: () => listeners.size };
}

/** A web-mode socket whose connection state the test drives. */
export function fakeSocket() {
  const listeners = new Set<(state: 'connecting' | 'open' | 'closed') => void>();
  let state: 'connecting' | 'open' | 'closed' = 'connecting';
  const socket = {
    request: async () => ({ ok: true as const, value: null }),
    subscribe: () => () => {},
    close: () => {},
    onState(listener: (s: typeof state) => void) {
      listeners.add(listener);
      listener(state);
      return () => listeners.delete(listener);
    },
  } satisfies WebSocketTransport;
  const set = (next: typeof state) => {
    state = next;
    for (const l of listeners) l(next);
  };
  return { socket, set };
}
