// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Memory, MethodOutput } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { MemoryFamily } from '../../../../renderer/src/views/memory/MemoryFamily';
import { fakeApi } from '../../fake-api';

afterEach(cleanup);

const memory: Memory = {
  id: 7,
  env: 'mock',
  taskId: 't1',
  runId: 'run-a',
  parentId: null,
  version: 1,
  structured: { rehearsals: [], consensus: { plan: [{ name: 'get_users', arguments: {} }], answer: null }, notes: '' },
  text: 'Consensus plan:\n  1. get_users({})',
  source: 'rehearsal',
  createdAt: Date.now(),
};

const commitOut = (commit: 'prompt' | 'plan' | 'safe'): MethodOutput<'memories.commit'> => ({
  rolloutId: 31,
  memoryId: 7,
  reward: 1,
  success: true,
  envCalls: 1,
  commit,
  fellBackAtTurn: null,
  memoryTokens: { total: 513, kept: 64 },
});

function setup(fit: MethodOutput<'memories.fit'>) {
  const fake = fakeApi({
    'memories.list': () => ({ items: [memory] }),
    'trajectories.list': () => ({ items: [], total: 0 }),
    'memories.fit': () => fit,
    'memories.commit': (input) => commitOut((input as { commit?: 'prompt' | 'plan' }).commit ?? fit.commit),
  });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <MemoryFamily memory={memory} />
    </ConnectionProvider>,
  );
  return fake;
}

const cutFit: MethodOutput<'memories.fit'> = {
  total: 513,
  room: 64,
  cut: true,
  commit: 'plan',
  reason: 'memory 513 tokens, room 64: the memory will be cut to its last 64 tokens; plan commit chosen, its 1-call consensus plan is followed whatever the prompt holds',
};

describe('MemoryFamily commit: safe by default', () => {
  it('before Commit it says the memory will be cut and preselects the plan commit chosen to fit; Commit leaves the choice to the engine', async () => {
    const fake = setup(cutFit);
    expect((await screen.findByTestId('commit-fit')).textContent).toBe(`${cutFit.reason}.`);
    expect(screen.getByTestId('commit-fit').className).toContain('notice-warn');
    await waitFor(() => expect((screen.getByLabelText('follow the plan') as HTMLInputElement).checked).toBe(true));
    fireEvent.click(screen.getByTestId('commit-submit'));
    expect((await screen.findByTestId('commit-outcome')).textContent).toContain('followed the plan');
    const sent = fake.calls.find((c) => c.method === 'memories.commit')!.input;
    expect(sent).toEqual({ memoryId: 7, runId: 'run-a' });
    expect(fake.calls.find((c) => c.method === 'memories.fit')!.input).toEqual({ memoryId: 7, runId: 'run-a' });
  });

  it('a mode picked by hand is sent as picked, and the view says it overrides the one chosen to fit', async () => {
    const fake = setup(cutFit);
    await screen.findByTestId('commit-fit');
    fireEvent.click(screen.getByLabelText('memory in the prompt'));
    expect(screen.getByTestId('commit-override').textContent).toContain('over the plan commit chosen to fit');
    fireEvent.click(screen.getByTestId('commit-submit'));
    await screen.findByTestId('commit-outcome');
    expect(fake.calls.find((c) => c.method === 'memories.commit')!.input).toEqual({ memoryId: 7, runId: 'run-a', commit: 'prompt' });
  });

  it('a memory that fits: an info line, memory in the prompt', async () => {
    setup({ total: 20, room: 64, cut: false, commit: 'prompt', reason: 'memory 20 tokens, room 64: the memory fits; memory in the prompt chosen' });
    expect((await screen.findByTestId('commit-fit')).className).toContain('notice-info');
    expect((screen.getByLabelText('memory in the prompt') as HTMLInputElement).checked).toBe(true);
  });
});
