import { describe, expect, it } from 'vitest';
import { parseCompare } from '../../../../renderer/src/views/dashboard/compare';

describe('parseCompare', () => {
  it('splits the compare parameter, dropping blanks, duplicates and the watched run', () => {
    expect(parseCompare('b, c,,b,a', 'a')).toEqual(['b', 'c']);
    expect(parseCompare(undefined, 'a')).toEqual([]);
    expect(parseCompare('', undefined)).toEqual([]);
  });
});
