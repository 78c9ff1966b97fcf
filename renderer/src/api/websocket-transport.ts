import type { Result, ServerFrame, Transport } from '../../../electron/contract';

/** The subset of WebSocket both the browser's and the `ws` package's sockets provide. */
export interface SocketLike {
  readyState: number;
  send(data: string): void;
  close(): void;
  addEventListener(type: 'open' | 'close' | 'error', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

export interface WebSocketTransport extends Transport {
  close(): void;
  /** Connection state changes: the app shows "reconnecting" while the engine is away. */
  onState(listener: (state: 'connecting' | 'open' | 'closed') => void): () => void;
}

const OPEN = 1;

/**
 * Web mode's transport: requests and pushed events over one WebSocket, reconnecting with
 * back-off when the socket drops. Requests made while disconnected wait for the socket.
 */
export function createWebSocketTransport(connect: () => SocketLike, options: { reconnectMs?: number } = {}): WebSocketTransport {
  let socket: SocketLike;
  let nextId = 1;
  let closedByUser = false;
  let state: 'connecting' | 'open' | 'closed' = 'connecting';
  const pending = new Map<number, (result: Result<unknown>) => void>();
  const queue: string[] = [];
  const eventListeners = new Set<(event: string, payload: unknown) => void>();
  const stateListeners = new Set<(state: 'connecting' | 'open' | 'closed') => void>();

  const setState = (next: typeof state) => {
    state = next;
    for (const listener of stateListeners) listener(next);
  };

  const open = () => {
    setState('connecting');
    socket = connect();
    socket.addEventListener('open', () => {
      setState('open');
      while (queue.length && socket.readyState === OPEN) socket.send(queue.shift()!);
    });
    socket.addEventListener('message', (event) => {
      let frame: ServerFrame;
      try {
        frame = JSON.parse(String(event.data)) as ServerFrame;
      } catch {
        return;
      }
      if (frame.type === 'event') {
        for (const listener of eventListeners) listener(frame.event, frame.payload);
      } else if (frame.id !== null) {
        const resolve = pending.get(frame.id);
        pending.delete(frame.id);
        resolve?.(frame.result as Result<unknown>);
      }
    });
    socket.addEventListener('close', () => {
      setState('closed');
      // Requests in flight on a dead socket will never be answered: fail them clearly.
      for (const [id, resolve] of pending) {
        pending.delete(id);
        resolve({ ok: false, error: { code: 'engine_unavailable', message: 'the connection to the engine closed; retrying' } });
      }
      if (!closedByUser) setTimeout(open, options.reconnectMs ?? 1000);
    });
  };
  open();

  return {
    request(method, input) {
      const id = nextId++;
      const text = JSON.stringify({ type: 'request', id, method, input });
      return new Promise((resolve) => {
        pending.set(id, resolve);
        if (socket.readyState === OPEN) socket.send(text);
        else queue.push(text);
      });
    },
    subscribe(listener) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    onState(listener) {
      stateListeners.add(listener);
      listener(state);
      return () => stateListeners.delete(listener);
    },
    close() {
      closedByUser = true;
      socket.close();
    },
  };
}
