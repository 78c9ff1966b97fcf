// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EnvDetail, EnvsTestOutput, EnvSummary } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { EnvsView } from '../../../../renderer/src/views/envs/EnvsView';
import { fakeApi } from '../../fake-api';

afterEach(cleanup);

// The tool schemas render in CodeMirror, which measures text ranges; jsdom has no layout, so give it empty ones.
beforeAll(() => {
  const empty = Object.assign([], { item: () => null }) as unknown as DOMRectList;
  Range.prototype.getClientRects ??= () => empty;
  Range.prototype.getBoundingClientRect ??= () => new DOMRect();
});

const counts = { train: 6, heldout: 2, ood: 1 };
const memory: EnvSummary = { id: 'memory', description: 'knowledge graph', track: 'mcp', toolCount: 1, taskCounts: counts, reset: 'restart: a fresh server process per episode' };
const memoryDetail: EnvDetail = { ...memory, tools: [{ name: 'read_graph', description: 'Read the graph', parameters: { type: 'object', properties: {} } }] };
const broken: EnvSummary = {
  id: 'broken',
  description: '',
  track: 'mcp',
  toolCount: 0,
  taskCounts: { train: 0, heldout: 0, ood: 0 },
  unavailable: 'task file /home/ada/.envace/mcp/broken/tasks.jsonl line 3: checklist item 1 names tool "wrte" which the server does not offer (it offers read, write)',
};

function renderView(handlers: Parameters<typeof fakeApi>[0], selected?: string) {
  const fake = fakeApi({ 'system.info': () => ({ dataHome: '/home/ada/.envace' }), ...handlers });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <EnvsView selected={selected} />
    </ConnectionProvider>,
  );
  return fake;
}

/** A promise the test settles, so the in-between (busy) state can be seen. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('EnvsView', () => {
  it('shows problems with the saved registrations as a warning above the list', async () => {
    renderView({ 'envs.list': () => ({ items: [memory], problems: ['/home/ada/.envace/mcp-servers.json cannot be read (Unexpected token); fix it, or remove it to start over'] }) });
    const banner = await screen.findByTestId('envs-problems');
    expect(banner.className).toContain('notice-warn');
    expect(banner.textContent).toContain('mcp-servers.json cannot be read (Unexpected token); fix it, or remove it to start over');
    expect(screen.getByTestId('envs-list').textContent).toContain('memory');
  });

  it('shows no banner when the registrations are fine, and the reset policy of envs that have one', async () => {
    renderView({ 'envs.list': () => ({ items: [memory] }), 'envs.get': () => memoryDetail }, 'memory');
    await screen.findByTestId('envs-list');
    expect(screen.queryByTestId('envs-problems')).toBeNull();
    expect(screen.getByTestId('envs-list').textContent).toContain('Between episodes: restart: a fresh server process per episode');
    expect((await screen.findByTestId('env-reset')).textContent).toBe('Between episodes: restart: a fresh server process per episode');
  });

  it('shows why an unavailable env cannot be used instead of its tools, with Remove', async () => {
    const fake = renderView({ 'envs.list': () => ({ items: [memory, broken] }) }, 'broken');
    const reason = await screen.findByTestId('env-unavailable');
    expect(reason.textContent).toContain(broken.unavailable);
    expect(screen.getByTestId('envs-list').textContent).toMatch(/broken.*unavailable/);
    expect(screen.queryByText(/^Tools \(/)).toBeNull();
    expect(screen.queryByTestId('tool-console')).toBeNull();
    expect(screen.queryByTestId('env-test')).toBeNull();
    expect(within(screen.getByTestId('env-detail')).getByTestId('env-remove')).toBeTruthy();
    expect(fake.calls.some((c) => c.method === 'envs.get')).toBe(false);
  });

  it('tests an MCP env end to end: progress while it runs, then passed/total per split and each failure with its reason', async () => {
    const answer = deferred<EnvsTestOutput>();
    const fake = renderView({ 'envs.list': () => ({ items: [memory] }), 'envs.get': () => memoryDetail, 'envs.test': () => answer.promise }, 'memory');
    fireEvent.click(await screen.findByTestId('env-test-run'));
    expect(screen.getByTestId('env-test-progress').textContent).toMatch(/Replaying the gold trajectories.*\d+ s/);
    expect((screen.getByTestId('env-test-run') as HTMLButtonElement).disabled).toBe(true);
    // A sample spread over each split by default: every task of a 100k-task file took hours.
    expect(fake.calls.find((c) => c.method === 'envs.test')?.input).toEqual({ id: 'memory', limit: 25 });

    answer.resolve({
      id: 'memory',
      tools: ['read_graph', 'create_entities'],
      reset: 'restart: a fresh server process per episode',
      oracle: {
        split: { train: { passed: 5, total: 6, of: 600 }, heldout: { passed: 2, total: 2 }, ood: { passed: 0, total: 0 } },
        failures: [{ taskId: 'add-alice', reason: 'state: read_graph contains "Alice" (got {"entities":[]})' }],
      },
      wallMs: 2400,
    });
    const result = await screen.findByTestId('env-test-result');
    expect(screen.queryByTestId('env-test-progress')).toBeNull();
    expect(result.querySelector('tr[data-split="train"]')?.textContent).toBe('train5/6 · a sample of 600');
    expect(result.querySelector('tr[data-split="heldout"]')?.textContent).toBe('held-out2/2');
    expect(result.querySelector('tr[data-split="ood"]')?.textContent).toBe('OODno tasks');
    expect(result.textContent).toContain('1 of 8 gold replays fail');
    expect(result.textContent).toContain('took 2 s');
    expect(screen.getByTestId('env-test-failures').textContent).toBe('add-alice state: read_graph contains "Alice" (got {"entities":[]})');
    // Every task on request: no limit.
    fireEvent.click(screen.getByTestId('env-test-all'));
    fireEvent.click(screen.getByTestId('env-test-run'));
    expect(fake.calls.filter((c) => c.method === 'envs.test').at(-1)?.input).toEqual({ id: 'memory' });
  });

  it('removes an MCP env only after the confirmation, then lists again', async () => {
    let items = [memory];
    const fake = renderView(
      {
        'envs.list': () => ({ items }),
        'envs.get': () => memoryDetail,
        'envs.remove': () => {
          items = [];
          return { ok: true };
        },
      },
      'memory',
    );
    fireEvent.click(await screen.findByTestId('env-remove'));
    expect(fake.calls.some((c) => c.method === 'envs.remove')).toBe(false);
    const confirm = screen.getByRole('button', { name: 'Remove environment', hidden: true });
    expect(screen.getByRole('dialog', { hidden: true }).textContent).toContain('memory will no longer be listed');

    fireEvent.click(screen.getByRole('button', { name: 'Cancel', hidden: true }));
    expect(screen.queryByRole('button', { name: 'Remove environment', hidden: true })).toBeNull();
    expect(fake.calls.some((c) => c.method === 'envs.remove')).toBe(false);
    expect(confirm.isConnected).toBe(false);

    fireEvent.click(screen.getByTestId('env-remove'));
    fireEvent.click(screen.getByRole('button', { name: 'Remove environment', hidden: true }));
    await screen.findByTestId('envs-empty');
    expect(fake.calls.find((c) => c.method === 'envs.remove')?.input).toEqual({ id: 'memory' });
    expect(window.location.hash).toBe('#/envs');
  });

  it('offers neither Test nor Remove for a built-in env', async () => {
    const files: EnvDetail = { id: 'files', description: 'a sandboxed folder', track: 'scratch', toolCount: 0, taskCounts: counts, tools: [] };
    renderView({ 'envs.list': () => ({ items: [files] }), 'envs.get': () => files }, 'files');
    await screen.findByTestId('env-detail');
    await waitFor(() => expect(screen.getByTestId('env-detail').textContent).toContain('a sandboxed folder'));
    expect(screen.queryByTestId('env-test')).toBeNull();
    expect(screen.queryByTestId('env-remove')).toBeNull();
  });
});
