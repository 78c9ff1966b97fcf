import { describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { sftLossRoles } from '../../../../electron/engine/algorithms/loops/sft';
import { type Segment, givenMask } from '../../../../electron/engine/algorithms/layout';

const sftOf = (sft: Record<string, unknown>) => RunConfig.parse({ env: 'retail', sft }).sft;
const given = (role: Segment['role'], ids: number[]): Segment => ({ role, text: '', ids, lead: 0, tail: 0, logprobs: [] });
const segments = [given('prompt', [1, 2]), given('act', [3, 4]), given('env', [5, 6, 7])];

describe('SFT loss roles per step', () => {
  it('act tokens only before worldModelLossFrom, act and observation tokens from it on', () => {
    const sft = sftOf({ worldModelLoss: true, worldModelLossFrom: 300 });
    expect(givenMask(segments, sftLossRoles(sft, 1))).toEqual([0, 0, 1, 1, 0, 0, 0]);
    expect(givenMask(segments, sftLossRoles(sft, 299))).toEqual([0, 0, 1, 1, 0, 0, 0]);
    expect(givenMask(segments, sftLossRoles(sft, 300))).toEqual([0, 0, 1, 1, 1, 1, 1]);
  });

  it('by default the observation loss runs from step 1; worldModelLoss false keeps it off at every step', () => {
    expect(sftLossRoles(sftOf({}), 1)).toEqual(['act', 'env']);
    expect(sftLossRoles(sftOf({ worldModelLoss: false, worldModelLossFrom: 2 }), 5)).toEqual(['act']);
    expect(() => sftOf({ worldModelLossFrom: 0 })).toThrow();
  });
});
