// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { RunsView } from '../../../../renderer/src/views/runs/RunsView';
import { fakeApi } from '../../fake-api';
import { makeRun } from '../../make-run';

afterEach(cleanup);

const reason = `compute worker exited: out of memory while allocating 2.1 GB for the AdamW moments of layers.3.attn.q_proj (model tiny, microBatchTokens 2048)`;

function renderRuns(...runs: ReturnType<typeof makeRun>[]) {
  const fake = fakeApi({ 'runs.list': () => ({ items: runs, total: runs.length }) });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <RunsView />
    </ConnectionProvider>,
  );
}

describe('RunsView: runs that explain themselves', () => {
  it('shows a failed run’s reason as one truncated line, the full text on hover and behind “more”', async () => {
    renderRuns(makeRun('broken', { status: 'failed', error: reason }));
    const line = await screen.findByTestId('run-error');
    expect(line.textContent).toMatch(/^compute worker exited: out of memory.*…$/);
    expect(line.getAttribute('title')).toBe(reason);
    fireEvent.click(screen.getByRole('button', { name: 'Show the full error of broken' }));
    expect(line.textContent).toBe(reason);
  });

  it('offers Duplicate and edit, not Resume, for a failed run without checkpoints', async () => {
    renderRuns(makeRun('broken', { status: 'failed', error: reason }), makeRun('resumable', { status: 'failed', error: 'killed', checkpointSteps: [10] }));
    await screen.findByTestId('runs-table');
    expect(screen.queryByRole('button', { name: 'Resume run broken' })).toBeNull();
    const duplicate = screen.getByRole('link', { name: 'Duplicate and edit run broken' });
    expect(duplicate.getAttribute('href')).toBe('#/new?from=broken');
    expect(duplicate.getAttribute('title')).toMatch(/No checkpoint to resume from/);
    expect(screen.getByRole('button', { name: 'Resume run resumable' })).not.toBeNull();
  });
});
