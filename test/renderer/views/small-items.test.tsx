// @vitest-environment jsdom
// Small things a user reads (issue 24): commands a newcomer can paste (npm ci puts no envace on the
// PATH, so every command says npx), and no "nothing here" beside figures that do exist elsewhere.
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunConfig } from '../../../electron/contract';
import { ConnectionProvider } from '../../../renderer/src/api/context';
import { EvaluateView } from '../../../renderer/src/views/evaluate/EvaluateView';
import { MemoryView } from '../../../renderer/src/views/memory/MemoryView';
import { fakeApi } from '../fake-api';
import { makeRun } from '../make-run';

vi.mock('../../../renderer/src/charts/LineChart', () => ({ LineChart: () => null }));

afterEach(cleanup);

function show(node: React.ReactNode, handlers: Parameters<typeof fakeApi>[0]) {
  const fake = fakeApi(handlers);
  render(<ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>{node}</ConnectionProvider>);
  return fake;
}

describe('commands shown with npx', () => {
  it('the Memory view with no memory shows a rehearse command that runs after npm ci', async () => {
    show(<MemoryView />, { 'memories.list': () => ({ items: [], total: 0 }), 'runs.list': () => ({ items: [], total: 0 }) });
    const code = [...(await screen.findByTestId('memory-empty')).querySelectorAll('code')].map((c) => c.textContent);
    expect(code).toHaveLength(1);
    expect(code[0]).toMatch(/^npx envace rehearse --run /);
  });
});

describe('Evaluate with no evaluation run from the view', () => {
  const runWith = (evalEvery: number) =>
    makeRun('run-a', { checkpointSteps: [4], config: RunConfig.parse({ env: 'mock', name: 'run-a', evalEvery }) });
  const open = (evalEvery: number) =>
    show(<EvaluateView runId="run-a" />, {
      'runs.list': () => ({ items: [runWith(evalEvery)], total: 1 }),
      'evals.list': () => ({ items: [] }),
      'memories.list': () => ({ items: [], total: 0 }),
    });

  it('points at the periodic held-out evaluations of a run that has them, on its Dashboard', async () => {
    open(25);
    const none = await screen.findByTestId('eval-none');
    expect(none.textContent).toContain('evaluates itself on held-out tasks every 25 steps');
    expect(within(none).getByRole('link', { name: 'Dashboard' }).getAttribute('href')).toBe('#/dashboard?run=run-a');
  });

  it('says only that none was run here for a run without them', async () => {
    open(0);
    const none = await screen.findByTestId('eval-none');
    expect(none.textContent).toBe('No evaluations run from here yet.');
  });
});
