import { describe, expect, it } from 'vitest';
import { outcomeLabel } from '../../../renderer/src/format/outcome';

describe('outcomeLabel', () => {
  it('says a rehearsed rollout had no real check instead of calling it unscored', () => {
    expect(outcomeLabel({ success: null, mode: 'rehearse' })).toBe('rehearsed: no real check');
    expect(outcomeLabel({ success: null, mode: 'real' })).toBe('no real check');
    expect(outcomeLabel({ success: true, mode: 'rehearse' })).toBe('succeeded');
    expect(outcomeLabel({ success: false, mode: 'real' })).toBe('failed');
  });
});
