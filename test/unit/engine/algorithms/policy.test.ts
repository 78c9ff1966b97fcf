import { describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { bucketByRoom, runSessionOptions } from '../../../../electron/engine/algorithms/policy';

const req = (len: number, maxNewTokens: number) => ({ prompt: new Array(len).fill(1), maxNewTokens });

describe('bucketByRoom', () => {
  it('keeps rows together when the longest prompt leaves every row its budget', () => {
    expect(bucketByRoom([req(10, 20), req(50, 20), req(30, 20)], 100)).toEqual([[1, 2, 0]]);
  });

  it('splits off rows whose budget one long prompt would cut short', () => {
    // Row 1 (95 tokens) leaves room for 5; rows 0 and 2 want 20 each and get their own batch.
    expect(bucketByRoom([req(10, 20), req(95, 20), req(30, 20)], 100)).toEqual([[1], [2, 0]]);
  });

  it('a row near the context end needs only the room it has', () => {
    expect(bucketByRoom([req(98, 20), req(97, 20)], 100)).toEqual([[0], [1]]);
    expect(bucketByRoom([req(97, 2), req(98, 20)], 100)).toEqual([[1, 0]]);
  });
});

describe('runSessionOptions', () => {
  it("gives every session the run's provider, and its thread count only where the run sets one", () => {
    const warn = () => {};
    expect(runSessionOptions(RunConfig.parse({ env: 'retail', provider: 'cpu' }))).toEqual({ provider: 'cpu' });
    expect(runSessionOptions(RunConfig.parse({ env: 'retail', provider: 'cpu', threads: 1 }), warn)).toEqual({ provider: 'cpu', intraOpThreads: 1, onFallback: warn });
    expect(RunConfig.parse({ env: 'retail' }).threads).toBe(0);
    expect(RunConfig.safeParse({ env: 'retail', threads: -1 }).success).toBe(false);
  });
});
