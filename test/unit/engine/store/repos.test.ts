import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { openDatabase, Store } from '../../../../electron/engine/store';

let store: Store;
beforeEach(() => {
  store = new Store(openDatabase(':memory:'));
  store.runs.insert({ id: 'r1', config: RunConfig.parse({ env: 'retail', algo: 'grpo-real' }), now: 1000 });
});
afterEach(() => store.close());

describe('metrics', () => {
  it('returns every point below maxPoints, in step order', () => {
    for (const step of [3, 1, 2]) store.metrics.append('r1', step, { reward: step / 10 });
    const [series] = store.metrics.query({ runId: 'r1', keys: ['reward'], maxPoints: 10 });
    expect(series).toEqual({ key: 'reward', steps: [1, 2, 3], values: [0.1, 0.2, 0.3], min: [0.1, 0.2, 0.3], max: [0.1, 0.2, 0.3], total: 3 });
  });

  it('down-samples 100k points by bucket mean and keeps the spikes in min/max', () => {
    const insert = store.db.transaction(() => {
      for (let step = 0; step < 100_000; step++) store.metrics.append('r1', step, { loss: step === 54_321 ? 1000 : 1 });
    });
    insert();
    const [series] = store.metrics.query({ runId: 'r1', keys: ['loss'], maxPoints: 500 });
    expect(series.total).toBe(100_000);
    expect(series.steps.length).toBeLessThanOrEqual(500);
    expect(series.steps.length).toBeGreaterThan(400);
    expect(Math.max(...series.max)).toBe(1000);
    expect(Math.min(...series.min)).toBe(1);
    const spikeBucket = series.max.indexOf(1000);
    expect(series.values[spikeBucket]).toBeCloseTo(1 + 999 / 200, 6); // 200 steps per bucket
  });

  it('rejects a duplicated step, and truncateAfter clears the way for a resume', () => {
    store.metrics.append('r1', 5, { reward: 1 });
    expect(() => store.metrics.append('r1', 5, { reward: 1 })).toThrow(/UNIQUE/);
    store.metrics.truncateAfter('r1', 4);
    store.metrics.append('r1', 5, { reward: 2 });
    expect(store.metrics.query({ runId: 'r1', maxPoints: 10 })[0].values).toEqual([2]);
  });

  it('skips non-finite values instead of storing NaN', () => {
    store.metrics.append('r1', 1, { kl: Number.NaN, reward: 1 });
    expect(store.metrics.keys('r1')).toEqual(['reward']);
  });
});

describe('rollouts and turns', () => {
  it('store token ids and log-probs as blobs and return them exactly (float32)', () => {
    const id = store.rollouts.insert({
      runId: 'r1', step: 1, taskId: 't', env: 'retail', mode: 'rehearse', reward: 0.5, success: false, checklist: null, envCalls: 0, envWallMs: 0, tokens: 4,
      turns: [
        { role: 'act', text: '<tool_call>', tokenIds: [7, 2 ** 31 - 1, 0], logprobs: [-0.1, -2.5, -1e-7], advantages: [0.4, 0.4, 0.4] },
        { role: 'rehearse', text: '{"status": "ok"}' },
      ],
    });
    const rollout = store.rollouts.get(id)!;
    expect(rollout.turns[0].tokenIds).toEqual([7, 2 ** 31 - 1, 0]);
    expect(rollout.turns[0].logprobs).toEqual([Math.fround(-0.1), -2.5, Math.fround(-1e-7)]);
    expect(rollout.turns[1]).toMatchObject({ role: 'rehearse', tokenIds: null, realText: null });
    store.rollouts.setRealCounterpart(id, 1, '{"status": "pending"}', { exact: false, jsonF1: 0.5, similarity: 0.8 });
    expect(store.rollouts.get(id)!.turns[1]).toMatchObject({ realText: '{"status": "pending"}', fidelity: { exact: false, jsonF1: 0.5 } });
  });

  it('filters by mode and reward, and deleting a run removes its rollouts and turns', () => {
    for (const [mode, reward] of [['real', 0], ['rehearse', 1], ['rehearse', 0.5]] as const) {
      store.rollouts.insert({ runId: 'r1', step: 1, taskId: 't', env: 'retail', mode, reward, success: null, checklist: null, envCalls: 0, envWallMs: 0, tokens: 0, turns: [{ role: 'act', text: 'x' }] });
    }
    expect(store.rollouts.list({ runId: 'r1', mode: 'rehearse', minReward: 0.75, limit: 10, offset: 0 }).total).toBe(1);
    store.runs.delete('r1');
    expect(store.db.prepare('SELECT COUNT(*) FROM turns').pluck().get()).toBe(0);
  });
});

describe('runs', () => {
  it('lists newest first, searches with LIKE wildcards escaped, and marks active runs interrupted at start-up', () => {
    store.runs.insert({ id: 'r2', config: RunConfig.parse({ env: 'household', name: '100%_done' }), now: 2000 });
    expect(store.runs.list({ limit: 10, offset: 0 }).items.map((r) => r.id)).toEqual(['r2', 'r1']);
    expect(store.runs.list({ search: '%_', limit: 10, offset: 0 }).items.map((r) => r.id)).toEqual(['r2']);
    store.runs.update('r1', { status: 'running' });
    expect(store.runs.markInterrupted()).toBe(1);
    expect(store.runs.get('r1')).toMatchObject({ status: 'interrupted', error: expect.stringMatching(/resume/) });
  });
});

describe('memories', () => {
  it('an edit is a new version pointing at its parent; the parent is unchanged', () => {
    const structured = { rehearsals: [], consensus: { plan: [], answer: 'a' }, notes: '' };
    const first = store.memories.insert({ env: 'retail', taskId: 't', runId: 'r1', structured, text: 'v1' });
    const second = store.memories.edit(first, { ...structured, notes: 'check the zip first' }, 'v2');
    expect(second).toMatchObject({ parentId: first.id, version: 2, source: 'edit', text: 'v2' });
    expect(store.memories.get(first.id)).toMatchObject({ version: 1, text: 'v1' });
    expect(store.memories.list({ taskId: 't', limit: 10 }).map((m) => m.version)).toEqual([2, 1]);
  });
});
