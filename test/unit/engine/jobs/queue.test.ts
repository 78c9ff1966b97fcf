import { describe, expect, it } from 'vitest';
import type { Job } from '../../../../electron/contract';
import { EtaEstimator } from '../../../../electron/engine/jobs/eta';
import { JobQueue } from '../../../../electron/engine/jobs/queue';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('JobQueue', () => {
  it('runs one compute job at a time, in order', async () => {
    const queue = new JobQueue();
    const order: string[] = [];
    const first = deferred();
    const a = queue.enqueue({ kind: 'train', label: 'a', run: async () => {
        order.push('a:start');
        await first.promise;
        order.push('a:end');
      },
    });
    const b = queue.enqueue({ kind: 'evaluate', label: 'b', run: async () => void order.push('b') });
    expect(queue.get(a.id)?.state).toBe('running');
    expect(queue.get(b.id)?.state).toBe('queued');
    first.resolve();
    await queue.wait(b.id);
    expect(order).toEqual(['a:start', 'a:end', 'b']);
    expect(queue.get(a.id)).toMatchObject({ state: 'completed', fraction: 1, etaMs: 0 });
  });

  it('cancels a running job through its signal and a queued one before it starts', async () => {
    const updates: Job[] = [];
    const queue = new JobQueue((j) => updates.push(j));
    let sawAbort = false;
    const running = queue.enqueue({
      kind: 'train',
      label: 'long',
      run: (ctx) =>
        new Promise<void>((_, reject) =>
          ctx.signal.addEventListener('abort', () => {
            sawAbort = true;
            reject(ctx.signal.reason);
          }),
        ),
    });
    let queuedRan = false;
    const queued = queue.enqueue({ kind: 'train', label: 'never', run: async () => void (queuedRan = true) });
    expect(queue.cancel(queued.id)).toBe(true);
    expect(queue.cancel(running.id)).toBe(true);
    expect(await queue.wait(running.id)).toMatchObject({ state: 'cancelled', error: null });
    expect(sawAbort).toBe(true);
    expect(queuedRan).toBe(false);
    expect(queue.cancel(running.id)).toBe(false);
    expect(updates.filter((u) => u.id === running.id).map((u) => u.state)).toContain('cancelled');
  });

  it('records a failure with its message and moves on', async () => {
    const queue = new JobQueue();
    const bad = queue.enqueue({ kind: 'export', label: 'bad', run: async () => Promise.reject(new Error('disk full')) });
    const good = queue.enqueue({ kind: 'export', label: 'good', run: async () => {} });
    expect(await queue.wait(bad.id)).toMatchObject({ state: 'failed', error: 'disk full', message: 'failed: disk full' });
    expect(await queue.wait(good.id)).toMatchObject({ state: 'completed' });
  });

  it('reports progress with an ETA from the measured rate', async () => {
    const updates: Job[] = [];
    const queue = new JobQueue((j) => updates.push(j));
    const gate = deferred();
    const job = queue.enqueue({
      kind: 'train',
      label: 'p',
      run: async (ctx) => {
        ctx.progress(0.1, 'step 1');
        await new Promise((r) => setTimeout(r, 30));
        ctx.progress(0.2, 'step 2');
        await gate.promise;
      },
    });
    await new Promise((r) => setTimeout(r, 60));
    const last = queue.get(job.id)!;
    expect(last.message).toBe('step 2');
    // 0.1 of the work took ≥ 30 ms, so the remaining 0.8 is ≥ 240 ms.
    expect(last.etaMs).toBeGreaterThanOrEqual(200);
    gate.resolve();
    await queue.wait(job.id);
  });
});

describe('EtaEstimator', () => {
  it('extrapolates the recent rate and is unknown until it has one', () => {
    const eta = new EtaEstimator();
    expect(eta.update(0, 0)).toBeNull();
    expect(eta.update(0.25, 1000)).toBe(3000);
    expect(eta.update(0.5, 2000)).toBe(2000);
    expect(eta.update(1, 2500)).toBe(0);
  });
});
