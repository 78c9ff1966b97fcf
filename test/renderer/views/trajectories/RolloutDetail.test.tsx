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
    const checked = rollout([...imagined.turns.slice(0, 2), turn(2, 'rehearse', 'two users: ann and bob', { realText: 'two users: ann and cy', fidelity: { exact: false, jsonF1: null, tokenF1: 0.75, similarity: 0.8 } })]);
    const fake = renderWith(() => ({
      rollout: checked,
      summary: { compared: 1, exactRate: 0, meanSimilarity: 0.8, meanJsonF1: null, jsonCompared: 0, meanTokenF1: 0.75, textCompared: 1, envCalls: 1 },
    }));
    fireEvent.click(await screen.findByTestId('reality-check'));
    const diff = await screen.findByTestId('reality-diff');
    expect(diff.querySelector('del')?.textContent).toBe('bob');
    expect(diff.querySelector('ins')?.textContent).toBe('cy');
    const figures = [...screen.getByTestId('reality-summary').querySelectorAll('dd')].map((dd) => dd.textContent);
    expect(figures).toEqual(['1', '0 %', '80 %', 'no real observation was JSON', '75 % over 1', '1']);
    expect(diff.textContent).toContain('token F1 75 % (not JSON)');
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

describe('RolloutDetail checklist', () => {
  const item = (index: number, p: { description: string; passed: boolean; unchecked?: true; weight?: number }) => ({ index, kind: p.unchecked ? 'nl-assertion' : 'no-call', weight: p.weight ?? 1, ...p });
  const withChecklist = (checklist: Rollout['checklist']): Rollout => ({ ...rollout([turn(0, 'prompt', 'go'), turn(1, 'act', '<answer>Done.</answer>')]), mode: 'real', checklist });

  it('says a checklist with only NL assertions is unchecked, not a score, and marks each assertion ?', async () => {
    const stored = withChecklist({
      score: 0,
      formatError: false,
      unchecked: true,
      items: [item(0, { description: 'The task is created successfully', passed: false, unchecked: true, weight: 0 }), item(1, { description: 'The user is complimented', passed: false, unchecked: true, weight: 0 })],
    });
    renderWith(() => ({}), stored);
    const box = await screen.findByTestId('rollout-checklist');
    expect(box.querySelector('summary')?.textContent).toBe('Checklist unchecked: all 2 requirements need an LLM judge (reward 0, never a success)');
    expect([...box.querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      '? The task is created successfully (unchecked: needs an LLM judge; not in the score)',
      '? The user is complimented (unchecked: needs an LLM judge; not in the score)',
    ]);
    expect(box.textContent).not.toContain('%');
  });

  it('scores the checkable items and counts the unchecked assertion apart', async () => {
    const stored = withChecklist({
      score: 1,
      formatError: false,
      items: [item(0, { description: 'did not call cancel_pending_order', passed: true }), item(1, { description: 'Agent should tell the materials', passed: false, unchecked: true, weight: 0 })],
    });
    renderWith(() => ({}), stored);
    const box = await screen.findByTestId('rollout-checklist');
    expect(box.querySelector('summary')?.textContent).toBe('Checklist score 100 % of the checkable items · 1 unchecked: needs an LLM judge');
    expect([...box.querySelectorAll('li')].map((li) => li.textContent?.slice(0, 2))).toEqual(['✓ ', '? ']);
  });
});
