// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionProvider } from '../../../renderer/src/api/context';
import { ConnectionBanner } from '../../../renderer/src/app/ConnectionBanner';
import { fakeApi, fakeSocket } from '../fake-api';

afterEach(cleanup);

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
