// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RolloutSummary } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { emptyMessage, TrajectoriesView } from '../../../../renderer/src/views/trajectories/TrajectoriesView';
import { fakeApi } from '../../fake-api';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  // jsdom has no scrollIntoView; the tests that need one install it.
  delete (Element.prototype as Partial<Element>).scrollIntoView;
});

const summary = (id: number): RolloutSummary => ({
  id,
  runId: 'run-1',
  step: 1,
  taskId: `t${id}`,
  env: 'mock',
  mode: 'real',
  reward: 0,
  success: false,
  envCalls: 1,
  envWallMs: 1,
  tokens: 3,
  turnCount: 2,
  memoryId: null,
  purpose: null,
  createdAt: 1,
});

function renderView(items: RolloutSummary[], props: { runId?: string; rolloutId?: string }) {
  const fake = fakeApi({
    'runs.list': () => ({ items: [], total: 0 }),
    'trajectories.list': () => ({ items, total: items.length }),
    'trajectories.get': () => new Promise(() => {}),
  });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <TrajectoriesView {...props} />
    </ConnectionProvider>,
  );
}

describe('TrajectoriesView', () => {
  it('says what an empty list means without a double negative', async () => {
    renderView([], { runId: 'run-1' });
    expect((await screen.findByTestId('trajectories-empty')).textContent).toContain('This run has not stored any rollouts yet.');
    for (const [oneRun, filtered] of [
      [true, true],
      [true, false],
      [false, true],
      [false, false],
    ] as const) {
      const text = emptyMessage(oneRun, filtered);
      // "No run has stored no rollouts" was the bug: one negation per sentence.
      expect(text.match(/\b(no|not)\b/gi), text).toHaveLength(1);
    }
    expect(emptyMessage(false, false)).toBe('No run has stored any rollouts yet.');
    expect(emptyMessage(true, true)).toBe('No rollout of this run matches these filters.');
  });

  it('keeps the list in its own scroll pane and brings an opened rollout into view', async () => {
    const scrolled: Element[] = [];
    // jsdom lays nothing out: every box is at top 0, so make the detail pane sit far below the window.
    vi.spyOn(Element.prototype, 'getBoundingClientRect').mockImplementation(function (this: Element) {
      return { top: this.classList.contains('rollout-detail-pane') ? 6800 : 0 } as DOMRect;
    });
    Element.prototype.scrollIntoView = vi.fn(function (this: Element) {
      scrolled.push(this);
    });
    renderView(
      Array.from({ length: 87 }, (_, i) => summary(i + 1)),
      { runId: 'run-1', rolloutId: '80' },
    );
    const list = await screen.findByTestId('rollouts');
    expect(list.parentElement?.classList.contains('rollout-list-pane')).toBe(true);
    expect(list.querySelector('[aria-current="true"]')?.textContent).toContain('#80');
    await vi.waitFor(() => expect(scrolled.map((e) => e.className)).toEqual(['rollout-detail-pane']));
  });

  it('leaves the page where it is when the opened detail is already in view', async () => {
    const scrolled = vi.fn();
    vi.spyOn(Element.prototype, 'getBoundingClientRect').mockImplementation(() => ({ top: 120 }) as DOMRect);
    Element.prototype.scrollIntoView = scrolled;
    renderView([summary(1), summary(2)], { rolloutId: '2' });
    await screen.findByTestId('rollouts');
    await new Promise((r) => setTimeout(r, 20));
    expect(scrolled).not.toHaveBeenCalled();
  });
});
