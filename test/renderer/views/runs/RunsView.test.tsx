// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractError, RunConfig, type Run } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { RunsView } from '../../../../renderer/src/views/runs/RunsView';
import { fakeApi } from '../../fake-api';
import { makeRun as makeStoredRun } from '../../make-run';

afterEach(cleanup);

/** A run as freshly created on the retail env two minutes ago. */
function makeRun(id: string, patch: Partial<Run> = {}): Run {
  return makeStoredRun(id, { env: 'retail', status: 'created', createdAt: Date.now() - 120_000, updatedAt: Date.now(), ...patch });
}

function renderWith(fake: ReturnType<typeof fakeApi>) {
  return render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <RunsView />
    </ConnectionProvider>,
  );
}

describe('RunsView', () => {
  it('disables the quickstart and says why when no environment is registered', async () => {
    const fake = fakeApi({ 'runs.list': () => ({ items: [], total: 0 }), 'envs.ids': () => ({ ids: [] }) });
    renderWith(fake);
    await screen.findByTestId('quickstart-no-envs');
    expect((screen.getByTestId('quickstart') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByLabelText('Equivalent command line').textContent).toBe('npx envace train --env retail --preset tiny');
  });

  it('starts the quickstart run on the first environment (retail absent), refreshes the list and opens its Dashboard', async () => {
    const runs: Run[] = [];
    const fake = fakeApi({
      'runs.list': () => ({ items: runs, total: runs.length }),
      'envs.ids': () => ({ ids: ['files'] }),
      'runs.create': (input) => {
        const run = makeRun('run-quick', { env: (input as { config: { env: string } }).config.env });
        runs.push(run);
        return run;
      },
      // The engine's recommended recipe: the quickstart creates exactly this config.
      'runs.recipe': (input) => ({
        id: `${(input as { env: string }).env}/nano`,
        config: RunConfig.parse({ env: (input as { env: string }).env, algo: 'sft+envace', model: { preset: 'nano' }, sft: { steps: 400 }, steps: 8 }),
        expected: { minutes: null, heldoutSuccess: null, diskMB: null, measured: null },
        notes: 'nano is the smoke-test model.',
      }),
    });
    renderWith(fake);
    const button = await screen.findByTestId('quickstart');
    await waitFor(() => expect((button as HTMLButtonElement).disabled).toBe(false));
    expect(screen.getByTestId('quickstart-recipe').textContent).toContain('400 SFT steps, then 8 rehearsal steps');
    fireEvent.click(button);
    await screen.findByTestId('runs-table');
    expect(fake.calls.find((c) => c.method === 'runs.recipe')?.input).toEqual({ env: 'files', model: { preset: 'tiny' }, variant: 'quick' });
    const input = fake.calls.find((c) => c.method === 'runs.create')?.input as { config: RunConfig; start: boolean };
    expect(input.config).toMatchObject({ env: 'files', algo: 'sft+envace', model: { preset: 'nano' }, sft: { steps: 400 }, steps: 8 });
    // Started at once, and its Dashboard opened (setup progress, curves and the result card live there).
    expect(input.start).toBe(true);
    await waitFor(() => expect(window.location.hash).toBe('#/dashboard?run=run-quick'));

    expect(document.querySelector('tr[data-run-id="run-quick"]')).not.toBeNull();
  });

  it('refreshes on run.progress events', async () => {
    let step = 0;
    const fake = fakeApi({ 'runs.list': () => ({ items: [makeRun('r1', { status: 'running', currentStep: step, totalSteps: 10 })], total: 1 }) });
    renderWith(fake);
    await screen.findByText('0/10');
    step = 4;
    act(() => fake.emit('run.progress', { runId: 'r1', step: 4, totalSteps: 10, fraction: 0.4, etaMs: 5000, phase: 'train' }));
    await screen.findByText('4/10');
  });

  it('shows the engine refusal inside the delete dialog and keeps the row', async () => {
    const fake = fakeApi({
      'runs.list': () => ({ items: [makeRun('busy', { status: 'failed' })], total: 1 }),
      'runs.delete': () => {
        throw new ContractError('conflict', 'run busy is queued; cancel it before deleting');
      },
    });
    renderWith(fake);
    fireEvent.click(await screen.findByRole('button', { name: 'Delete run busy' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete run', hidden: true }));
    const alert = await screen.findByRole('alert', { hidden: true });
    expect(alert.textContent).toContain('Not possible right now');
    expect(alert.textContent).toContain('cancel it before deleting');
    expect(document.querySelector('tr[data-run-id="busy"]')).not.toBeNull();
  });

  it('passes the search and status filters to runs.list and says when nothing matches', async () => {
    const fake = fakeApi({
      'runs.list': (input) => {
        const { search } = input as { search?: string };
        const items = search ? [] : [makeRun('a')];
        return { items, total: items.length };
      },
    });
    renderWith(fake);
    await screen.findByTestId('runs-table');
    fireEvent.change(screen.getByTestId('runs-search'), { target: { value: 'zzz' } });
    fireEvent.change(screen.getByTestId('runs-status'), { target: { value: 'failed' } });
    await screen.findByTestId('runs-no-match');
    expect(fake.calls.at(-1)).toEqual({ method: 'runs.list', input: { search: 'zzz', status: 'failed', limit: 500 } });
  });
});
