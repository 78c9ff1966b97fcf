// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractError, type Rollout, type Turn } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { RolloutDetail } from '../../../../renderer/src/views/trajectories/RolloutDetail';
import { fakeApi } from '../../fake-api';

afterEach(cleanup);

const turn = (index: number, role: Turn['role'], text: string, real: Partial<Turn> = {}): Turn => ({ index, role, text, tokenIds: null, logprobs: null, advantages: null, realText: null, fidelity: null, ...real });

function rollout(turns: Turn[]): Rollout {
  return { id: 7, runId: 'r', step: 1, taskId: 't1', env: 'mock', mode: 'rehearse', reward: 0, success: false, envCalls: 0, envWallMs: 0, tokens: 5, turnCount: turns.length, memoryId: null, purpose: null, createdAt: 1, checklist: null, turns };
}

const imagined = rollout([turn(0, 'prompt', 'go'), turn(1, 'act', '<tool_call>{"name":"get_users","arguments":{}}</tool_call>'), turn(2, 'rehearse', 'two users: ann and bob')]);

function renderWith(realityCheck: () => unknown, stored: Rollout = imagined) {
  const fake = fakeApi({ 'trajectories.get': () => stored, 'trajectories.realityCheck': realityCheck });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <RolloutDetail id={7} />
    </ConnectionProvider>,
  );
  return fake;
}

describe('RolloutDetail reality check', () => {
  it('puts the real observation beside the imagined one, with the figures', async () => {
    const checked = rollout([...imagined.turns.slice(0, 2), turn(2, 'rehearse', 'two users: ann and bob', { realText: 'two users: ann and cy', fidelity: { exact: false, jsonF1: null, similarity: 0.8 } })]);
    const fake = renderWith(() => ({ rollout: checked, summary: { compared: 1, exactRate: 0, meanSimilarity: 0.8, meanJsonF1: null, envCalls: 1 } }));
    fireEvent.click(await screen.findByTestId('reality-check'));
    const diff = await screen.findByTestId('reality-diff');
    expect(diff.querySelector('del')?.textContent).toBe('bob');
    expect(diff.querySelector('ins')?.textContent).toBe('cy');
    const figures = [...screen.getByTestId('reality-summary').querySelectorAll('dd')].map((dd) => dd.textContent);
    expect(figures).toEqual(['1', '0 %', '80 %', 'no real observation was JSON', '1']);
    expect(fake.calls.find((c) => c.method === 'trajectories.realityCheck')?.input).toEqual({ id: 7 });
  });

  it('shows the engine refusal, and offers no check on a rollout without rehearsed observations', async () => {
    renderWith(() => {
      throw new ContractError('not_found', 'environment mock has no task t1');
    });
    fireEvent.click(await screen.findByTestId('reality-check'));
    expect((await screen.findByRole('alert')).textContent).toContain('environment mock has no task t1');
    cleanup();
    renderWith(() => ({}), rollout([turn(0, 'prompt', 'go'), turn(1, 'act', '<answer>4</answer>')]));
    await screen.findByTestId('rollout-detail');
    expect(screen.queryByTestId('reality-check')).toBeNull();
  });
});
