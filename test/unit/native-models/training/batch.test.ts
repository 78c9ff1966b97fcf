import { describe, expect, it } from 'vitest';
import { BatchError, packBatch, unpackPerToken } from '../../../../native-models/training/batch';

const limits = { vocabSize: 50, maxSeqLen: 8 };

describe('packBatch', () => {
  it('shifts targets and per-token arrays by one and right-pads shorter rows', () => {
    const p = packBatch({ tokens: [[1, 2, 3, 4], [5, 6]], sftMask: [[9, 1, 0, 1], [9, 1]] }, limits);
    expect([p.B, p.T]).toEqual([2, 3]);
    expect(Array.from(p.inputIds, Number)).toEqual([1, 2, 3, 5, 0, 0]);
    expect(Array.from(p.targets, Number)).toEqual([2, 3, 4, 6, 0, 0]);
    expect(Array.from(p.attentionMask, Number)).toEqual([1, 1, 1, 1, 0, 0]);
    expect(Array.from(p.positionIds, Number)).toEqual([0, 1, 2, 0, 0, 0]);
    // Entry 0 (the 9s) is never a target and is dropped.
    expect(Array.from(p.perToken.get('sft_mask')!)).toEqual([1, 0, 1, 1, 0, 0]);
    expect(unpackPerToken(Float32Array.from([0.5, 0.25, 1, 2, 7, 7]), [[1, 2, 3, 4], [5, 6]], p.T)).toEqual([[0, 0.5, 0.25, 1], [0, 2]]);
  });

  it('names the row and field of bad input', () => {
    expect(() => packBatch({ tokens: [] }, limits)).toThrow(BatchError);
    expect(() => packBatch({ tokens: [[1, 2], [3, 50]] }, limits)).toThrow(/row 1 token 1 is 50, outside the vocabulary \[0, 50\)/);
    expect(() => packBatch({ tokens: [[1, 2, 3, 4, 5, 6, 7, 8, 9]] }, limits)).toThrow(/over maxSeqLen 8/);
    expect(() => packBatch({ tokens: [[1, 2]], advantages: [[0, NaN]] }, limits)).toThrow(/advantages row 0 entry 1 is not a finite number/);
    expect(() => packBatch({ tokens: [[1, 2]], pgMask: [[1, 1], [1, 1]] }, limits)).toThrow(/pgMask has 2 rows, tokens has 1/);
  });
});
