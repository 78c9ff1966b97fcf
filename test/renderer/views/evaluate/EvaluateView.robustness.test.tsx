// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { EvaluateView } from '../../../../renderer/src/views/evaluate/EvaluateView';
import type { StoredEval } from '../../../../renderer/src/views/evaluate/eval-table';
import { fakeApi } from '../../fake-api';
import { makeRun } from '../../make-run';

// uPlot needs a real window (matchMedia); the chart is not under test here.
vi.mock('../../../../renderer/src/charts/LineChart', () => ({ LineChart: () => null }));

afterEach(cleanup);

const cell = (perturbation: 'none' | 'filler' | 'memory', where: 'system' | 'instruction' | 'memory' | null, tokens: number, success: number) => ({
  perturbation,
  where,
  tokens,
  success,
  delta: success - 0.6,
  envCallsPerTask: 1,
  invalidActionRate: 0,
});

function stored(id: number, passed: boolean): StoredEval {
  const cells = [cell('none', null, 0, 0.6), cell('filler', 'system', 4, passed ? 0.58 : 0.2), cell('memory', 'memory', 190, 0.6)];
  return {
    id,
    createdAt: id,
    runId: 'run-a',
    step: 4,
    env: 'mock',
    split: 'heldout',
    rehearsals: 0,
    mode: 'parallel',
    commit: 'prompt',
    memories: 'rehearse',
    tasks: 50,
    success: 0.6,
    meanScore: 0.6,
    invalidActionRate: 0,
    envCallsPerTask: 1,
    tokensPerTask: 30,
    wallMs: 1000,
    fidelity: null,
    perTask: [],
    robustness: { cells, worstDrop: Math.max(0, ...cells.map((c) => -c.delta)), tolerance: 0.05, passed },
  };
}

function setup(items: StoredEval[]) {
  const fake = fakeApi({
    'runs.list': () => ({ items: [makeRun('run-a', { checkpointSteps: [4] })], total: 1 }),
    'evals.list': () => ({ items }),
    'memories.list': () => ({ items: [], total: 0 }),
    'evals.run': () => items[0],
  });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <EvaluateView />
    </ConnectionProvider>,
  );
  return fake;
}

describe('EvaluateView robustness', () => {
  it('asks for the robustness evaluation when ticked, and not with test-time rehearsals', async () => {
    const fake = setup([]);
    const toggle = (await screen.findByTestId('eval-robustness-toggle')) as HTMLInputElement;
    fireEvent.click(toggle);
    fireEvent.click(screen.getByTestId('eval-submit'));
    await waitFor(() => expect(fake.calls.some((c) => c.method === 'evals.run')).toBe(true));
    expect(fake.calls.find((c) => c.method === 'evals.run')!.input).toMatchObject({ runId: 'run-a', robustness: true, rehearsals: 0 });

    fireEvent.change(screen.getByTestId('eval-rehearsals'), { target: { value: '2' } });
    expect(toggle.disabled).toBe(true);
    expect(toggle.checked).toBe(false);
    await waitFor(() => expect((screen.getByTestId('eval-submit') as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(screen.getByTestId('eval-submit'));
    await waitFor(() => expect(fake.calls.filter((c) => c.method === 'evals.run')).toHaveLength(2));
    expect(fake.calls.filter((c) => c.method === 'evals.run')[1]!.input).not.toHaveProperty('robustness');
  });

  it('shows each stored robustness table with its Δ per cell and the verdict', async () => {
    setup([stored(2, false), stored(1, true)]);
    const tables = await screen.findAllByTestId('eval-robustness');
    expect(tables).toHaveLength(2);
    const failing = within(tables[0]!);
    expect(failing.getByTestId('eval-robustness-verdict').textContent).toMatch(/^Fails: a perturbation costs −40 pp, more than 5 points/);
    const systemRow = tables[0]!.querySelector('[data-cell="filler:system"]')!;
    expect(systemRow.querySelector('[data-col="delta"]')!.textContent).toBe('−40 pp');
    expect(systemRow.textContent).toContain('end of the system text');
    expect(within(tables[1]!).getByTestId('eval-robustness-verdict').textContent).toMatch(/^Passes: .*worst drop −2 pp/);
    expect(tables[0]!.querySelectorAll('tbody tr')).toHaveLength(3);
  });
});
