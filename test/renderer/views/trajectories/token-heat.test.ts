import { describe, expect, it } from 'vitest';
import { heatColor, maxAbs } from '../../../../renderer/src/views/trajectories/token-heat';

describe('heatColor', () => {
  it('tints log-probs by how unlikely the token was', () => {
    expect(heatColor('logprob', 0, 1)).toBe('rgba(230, 90, 20, 0)');
    expect(heatColor('logprob', Math.log(0.2), 1)).toBe('rgba(230, 90, 20, 0.6)');
    expect(heatColor('logprob', -Infinity, 1)).toBe('transparent');
  });
  it('colours advantages green or red, scaled by the largest magnitude in the turn', () => {
    expect(heatColor('advantage', 0.5, 1)).toBe('rgba(40, 160, 70, 0.375)');
    expect(heatColor('advantage', -1, 1)).toBe('rgba(210, 50, 50, 0.75)');
    expect(heatColor('advantage', -3, 1)).toBe('rgba(210, 50, 50, 0.75)');
    expect(heatColor('advantage', 0, 1)).toBe('transparent');
    expect(heatColor('advantage', 0.4, 0)).toBe('transparent');
    expect(heatColor('advantage', undefined, 1)).toBe('transparent');
  });
});

describe('maxAbs', () => {
  it('ignores non-finite values and handles missing arrays', () => {
    expect(maxAbs([0.2, -0.6, Number.NaN, 0.1])).toBe(0.6);
    expect(maxAbs(null)).toBe(0);
  });
});
