// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractError } from '../../../electron/contract';
import { ConnectionProvider } from '../../../renderer/src/api/context';
import { useCall } from '../../../renderer/src/hooks/useCall';
import { fakeApi, fakeSocket } from '../fake-api';

afterEach(cleanup);

function RunCount() {
  const runs = useCall('runs.list', {});
  if (runs.error) return <p>error: {(runs.error as Error).message}</p>;
  return <p>{runs.data ? `${runs.data.total} runs` : 'loading'}</p>;
}

describe('useCall', () => {
  it('fetches again after the socket reconnects, not on the first open', async () => {
    let total = 0;
    const fake = fakeApi({ 'runs.list': () => ({ items: [], total: total++ }) });
    const { socket, set } = fakeSocket();
    render(
      <ConnectionProvider connection={{ api: fake.api, transport: 'websocket', socket }}>
        <RunCount />
      </ConnectionProvider>,
    );
    await screen.findByText('0 runs');
    act(() => set('open'));
    expect(fake.calls).toHaveLength(1);
    act(() => set('closed'));
    act(() => set('open'));
    await screen.findByText('1 runs');
    expect(fake.calls).toHaveLength(2);
  });

  it('exposes a ContractError as the error', async () => {
    const fake = fakeApi({
      'runs.list': () => {
        throw new ContractError('engine_unavailable', 'the connection to the engine closed; retrying');
      },
    });
    render(
      <ConnectionProvider connection={{ api: fake.api, transport: 'ipc' }}>
        <RunCount />
      </ConnectionProvider>,
    );
    await screen.findByText('error: the connection to the engine closed; retrying');
  });
});
