// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunConfig, type Run } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import type { RunLine } from '../../../../renderer/src/charts/LineChart';
import { metricGlossary } from '../../../../renderer/src/format/metric-glossary';
import { DashboardView } from '../../../../renderer/src/views/dashboard/DashboardView';
import { fakeApi } from '../../fake-api';
import { makeRun } from '../../make-run';

// uPlot needs a canvas jsdom lacks; the chart stands in as the lines it was given, which is what these tests check.
vi.mock('../../../../renderer/src/charts/LineChart', () => ({
  LineChart: ({ metric, lines }: { metric: string; lines: RunLine[] }) => <pre data-testid={`chart-${metric}`}>{JSON.stringify(lines)}</pre>,
}));

afterEach(cleanup);

const series = (key: string, steps: number[]) => ({ key, steps, values: steps.map((s) => s / 10), min: [], max: [], total: steps.length });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A warm-started chain (SFT 400 → envace 8) and a plain envace run of 5 steps. */
const chain = makeRun('chain', {
  algo: 'sft+envace',
  config: RunConfig.parse({ env: 'retail', algo: 'sft+envace', sft: { steps: 400 }, steps: 8 }),
  status: 'failed',
  currentStep: 403,
  totalSteps: 408,
  error: 'compute worker exited: out of memory\nat step 403',
});
const plain = makeRun('plain', { algo: 'envace', config: RunConfig.parse({ env: 'retail', algo: 'envace', steps: 5, evalEvery: 5 }), currentStep: 5, totalSteps: 5 });

function renderDashboard(runId: string, compare?: string, extra: Partial<Record<'runs.log', (input: unknown) => unknown>> = {}) {
  const runs: Run[] = [chain, plain];
  const fake = fakeApi({
    'runs.list': () => ({ items: runs, total: runs.length }),
    'runs.get': (input) => runs.find((r) => r.id === (input as { id: string }).id)!,
    'runs.log': () => ({ lines: [] }),
    'metrics.query': (input) => {
      const id = (input as { runId: string }).runId;
      return { runId: id, series: id === 'chain' ? [series('reward', range(1, 408))] : [series('reward', range(1, 5)), series('eval/success', [5])] };
    },
    ...extra,
  });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <DashboardView runId={runId} compare={compare} />
    </ConnectionProvider>,
  );
  return fake;
}

const linesOf = (metric: string) => JSON.parse(screen.getByTestId(`chart-${metric}`).textContent!) as RunLine[];

describe('DashboardView', () => {
  it('shows why a run failed and its stages, and says how to get a success curve', async () => {
    renderDashboard('chain');
    expect((await screen.findByTestId('run-failure')).textContent).toContain('compute worker exited: out of memory');
    expect(screen.getByTestId('run-stages').textContent).toBe('SFT 400/400 → envace 3/8');
    expect((await screen.findByTestId('success-empty')).textContent).toMatch(/evalEvery.*is 0/);
  });

  it('draws the held-out success curve when the run evaluates', async () => {
    renderDashboard('plain');
    await waitFor(() => expect(linesOf('eval/success')[0]).toMatchObject({ steps: [5], values: [0.5] }));
    expect(screen.queryByTestId('success-empty')).toBeNull();
  });

  it('puts a glossary line on each metric title', async () => {
    renderDashboard('plain');
    await screen.findByTestId('chart-reward');
    const title = document.querySelector('[data-metric="reward"] h3')!;
    expect(title.getAttribute('title')).toBe(metricGlossary.reward);
    expect(document.querySelector('[data-metric="eval/success"] h3')!.getAttribute('title')).toBe(metricGlossary['eval/success']);
  });

  it('overlays compared runs by absolute step, and by step within the RL stage on request', async () => {
    renderDashboard('chain', 'plain');
    await screen.findByTestId('chart-reward');
    // Absolute by default: nothing of either run is dropped (the chain's SFT steps 1–400 included).
    expect((screen.getByTestId('compare-align') as HTMLSelectElement).value).toBe('absolute');
    expect(linesOf('reward')[0]!.steps).toEqual(range(1, 408));
    fireEvent.change(screen.getByTestId('compare-align'), { target: { value: 'rl' } });
    const [watched, compared] = linesOf('reward');
    // The chain's RL steps 401–408 and the plain run's 1–5 both start at 1.
    expect(watched!.steps).toEqual(range(1, 8));
    expect(watched!.values[0]).toBeCloseTo(40.1);
    expect(compared!.steps).toEqual(range(1, 5));
    // And what differs between the two configs, knob by knob.
    const diff = screen.getByTestId('config-diff');
    expect([...diff.querySelectorAll('tbody tr')].map((tr) => tr.textContent)).toEqual(expect.arrayContaining(['algosft+envaceenvace', 'evalEvery05', 'sft.steps4000']));
  });

  it('reads the stored log on mount, then appends live lines', async () => {
    const fake = renderDashboard('chain', undefined, { 'runs.log': () => ({ lines: [{ runId: 'chain', level: 'error', message: 'stored before the reload', time: 1 }] }) });
    const log = screen.getByTestId('run-log');
    await waitFor(() => expect(log.textContent).toContain('stored before the reload'));
    act(() => fake.emit('run.log', { runId: 'chain', level: 'info', message: 'live line', time: 2 }));
    expect([...log.querySelectorAll('li')].map((li) => li.lastChild?.textContent?.trim())).toEqual(['stored before the reload', 'live line']);
    expect(fake.calls.find((c) => c.method === 'runs.log')?.input).toMatchObject({ id: 'chain' });
  });
  it('ends a completed run on a result card: held-out before → after and the best kept checkpoint, linked to Evaluate', async () => {
    const done = makeRun('done', {
      algo: 'sft+envace',
      config: RunConfig.parse({ env: 'retail', algo: 'sft+envace', sft: { steps: 600 }, steps: 20, evalEvery: 250, checkpointEvery: 250 }),
      status: 'completed',
      currentStep: 620,
      totalSteps: 620,
      checkpoints: [250, 500, 620].map((step) => ({ step, createdAt: 1 })),
    });
    const fake = fakeApi({
      'runs.list': () => ({ items: [done], total: 1 }),
      'runs.get': () => done,
      'runs.log': () => ({ lines: [] }),
      'metrics.query': () => ({ runId: 'done', series: [{ key: 'eval/success', steps: [0, 250, 500, 620], values: [0, 0.42, 0.6, 0.58], min: [], max: [], total: 4 }] }),
    });
    render(
      <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
        <DashboardView runId="done" />
      </ConnectionProvider>,
    );
    const card = await screen.findByTestId('result-card');
    expect(card.querySelector('h3')!.textContent).toMatch(/^Result: held-out success 0 % → 58 %$/);
    expect(card.textContent).toContain('untrained (step 0) → step 620');
    expect(card.textContent).toContain('+58 points');
    expect(screen.getByTestId('result-best').textContent).toMatch(/Best checkpoint: step 500 \(60 % held-out\)/);
    expect(screen.getByRole('link', { name: /Evaluate it/ }).getAttribute('href')).toBe('#/evaluate?run=done&step=500');
  });
});
