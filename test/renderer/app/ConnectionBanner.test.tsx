// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocketTransport } from '../../../renderer/src/api/websocket-transport';
import { ConnectionProvider } from '../../../renderer/src/api/context';
import { ConnectionBanner } from '../../../renderer/src/app/ConnectionBanner';
import { fakeApi } from '../fake-api';

afterEach(cleanup);

function fakeSocket() {
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

describe('ConnectionBanner', () => {
  it('says connecting, disappears when open, and says reconnecting after a drop', () => {
    const fake = fakeApi({});
    const { socket, set } = fakeSocket();
    render(
      <ConnectionProvider connection={{ api: fake.api, transport: 'websocket', socket }}>
        <ConnectionBanner />
      </ConnectionProvider>,
    );
    expect(screen.getByTestId('connection-banner').textContent).toContain('Connecting to the engine');
    act(() => set('open'));
    expect(screen.queryByTestId('connection-banner')).toBeNull();
    act(() => set('closed'));
    expect(screen.getByTestId('connection-banner').textContent).toContain('Connection to the engine lost — reconnecting');
    act(() => set('open'));
    expect(screen.queryByTestId('connection-banner')).toBeNull();
  });

  it('shows the engine restarting until it reports ready (IPC, no socket)', () => {
    const fake = fakeApi({});
    render(
      <ConnectionProvider connection={{ api: fake.api, transport: 'ipc' }}>
        <ConnectionBanner />
      </ConnectionProvider>,
    );
    expect(screen.queryByTestId('connection-banner')).toBeNull();
    act(() => fake.emit('engine.status', { state: 'restarting', message: 'the engine exited with code 134' }));
    expect(screen.getByTestId('connection-banner').textContent).toContain('The engine is restarting: the engine exited with code 134');
    act(() => fake.emit('engine.status', { state: 'ready', message: '' }));
    expect(screen.queryByTestId('connection-banner')).toBeNull();
  });
});
