// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Job } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { RehearsePanel } from '../../../../renderer/src/views/memory/RehearsePanel';
import { fakeApi } from '../../fake-api';
import { makeRun } from '../../make-run';

afterEach(cleanup);

const job = (patch: Partial<Job>): Job => ({
  id: 'job-9',
  kind: 'rehearse',
  label: 'rehearse t1 ×3 (sequential)',
  state: 'running',
  fraction: null,
  etaMs: null,
  message: 'rehearsal 2 of 3',
  runId: 'run-a',
  error: null,
  createdAt: Date.now(),
  startedAt: Date.now(),
  finishedAt: null,
  ...patch,
});

describe('RehearsePanel', () => {
  it('sends the rehearsal request, follows its job live with a Cancel, and hands back the memory', async () => {
    let finish: (value: unknown) => void = () => {};
    const fake = fakeApi({
      'runs.list': () => ({ items: [makeRun('run-empty'), makeRun('run-a', { checkpointSteps: [1, 3] })], total: 2 }),
      'trajectories.list': () => ({ items: [], total: 0 }),
      'memories.rehearse': () => new Promise((resolve) => (finish = resolve)),
      'jobs.cancel': () => ({ ok: true }),
    });
    const onDone = vi.fn();
    render(
      <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
        <RehearsePanel onDone={onDone} />
      </ConnectionProvider>,
    );
    // Only runs with a checkpoint hold a policy to rehearse with.
    const runSelect = (await screen.findByTestId('rehearse-run')) as HTMLSelectElement;
    expect([...runSelect.options].map((o) => o.value)).toEqual(['run-a']);
    expect((screen.getByTestId('rehearse-submit') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('rehearse-problems').textContent).toBe('Before rehearsing: pick a task.');
    fireEvent.change(screen.getByTestId('rehearse-task'), { target: { value: 't1' } });
    // Out of range: kept as typed and explained beside the disabled button, never clamped silently.
    fireEvent.change(screen.getByTestId('rehearse-count'), { target: { value: '40' } });
    fireEvent.change(screen.getByTestId('rehearse-temperature'), { target: { value: '9' } });
    expect((screen.getByTestId('rehearse-submit') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('rehearse-problems').textContent).toBe(
      'Before rehearsing: rehearsals must be a whole number from 1 to 16 (got "40"); temperature must be between 0 and 5 (got "9").',
    );
    fireEvent.change(screen.getByTestId('rehearse-temperature'), { target: { value: '1' } });
    fireEvent.change(screen.getByTestId('rehearse-count'), { target: { value: '3' } });
    expect(screen.queryByTestId('rehearse-problems')).toBeNull();
    fireEvent.click(screen.getByLabelText('sequential'));
    fireEvent.click(screen.getByTestId('rehearse-submit'));

    await waitFor(() => expect(fake.calls.find((c) => c.method === 'memories.rehearse')?.input).toEqual({ runId: 'run-a', taskId: 't1', rehearsals: 3, mode: 'sequential', temperature: 1 }));
    expect(screen.getByTestId('job-progress').getAttribute('data-state')).toBe('starting');
    // Another run's job is not this one.
    act(() => fake.emit('job.update', job({ id: 'job-other', runId: 'run-b', message: 'elsewhere' })));
    expect(screen.getByTestId('job-progress').getAttribute('data-state')).toBe('starting');
    act(() => fake.emit('job.update', job({})));
    expect(screen.getByTestId('job-progress').textContent).toContain('rehearsal 2 of 3');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(fake.calls.find((c) => c.method === 'jobs.cancel')?.input).toEqual({ id: 'job-9' }));

    const answer = { memory: { id: 5 }, rehearsalIds: [11, 12, 13] };
    await act(async () => finish(answer));
    expect(onDone).toHaveBeenCalledWith(answer);
    expect(screen.queryByTestId('job-progress')).toBeNull();
  });
});
