import { describe, expect, it } from 'vitest';
import { axisRange, lineChart, ticks } from '../../../../electron/engine/experiment/svg';

const count = (s: string, re: RegExp) => (s.match(re) ?? []).length;

describe('axisRange and ticks', () => {
  it('spans the finite data; a single value is widened by half a unit', () => {
    expect(axisRange([3, -1, 2, Number.NaN, Infinity])).toEqual({ min: -1, max: 3 });
    expect(axisRange([2, 2])).toEqual({ min: 1.5, max: 2.5 });
    expect(axisRange([Number.NaN])).toBeNull();
  });

  it('evenly spaced ticks from min to max', () => {
    expect(ticks({ min: 0, max: 1 })).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(ticks({ min: 10, max: 20 }, 3)).toEqual([10, 15, 20]);
  });
});

describe('lineChart', () => {
  const svg = lineChart({
    title: 'reward <&>',
    xLabel: 'step',
    yLabel: 'reward',
    width: 400,
    height: 300,
    series: [
      {
        name: 'envace',
        points: [
          [1, 0],
          [2, 0.5],
          [3, 1],
        ],
      },
      {
        name: 'grpo-real',
        points: [
          [1, 1],
          [3, 0.5],
        ],
      },
      { name: 'paw', points: [[2, 0.25]] },
    ],
  });

  it('one polyline per series and one legend entry each, titles escaped', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(count(svg, /<polyline/g)).toBe(3);
    expect(count(svg, /class="legend"/g)).toBe(3);
    expect(svg).toContain('>envace</text>');
    expect(svg).toContain('reward &lt;&amp;&gt;');
    expect(svg).not.toContain('<&>');
    // The one-point series gets a dot so it is visible.
    expect(count(svg, /<circle/g)).toBe(1);
  });

  it('maps the data range onto the plot: min x at the left axis, max y at the top', () => {
    const first = svg
      .match(/<polyline[^>]*points="([^"]+)"/)![1]
      .split(' ')
      .map((p) => p.split(',').map(Number));
    // Left margin 56, plot width 400 − 56 − 170 = 174; top margin 36, plot height 300 − 36 − 44 = 220.
    expect(first[0]).toEqual([56, 256]); // (1, 0): left edge, bottom
    expect(first[1]).toEqual([143, 146]); // (2, 0.5): middle
    expect(first[2]).toEqual([230, 36]); // (3, 1): right edge, top
    expect(count(svg, /class="xtick"/g)).toBe(5);
    expect(svg).toContain('>0.5</text>');
  });

  it('says so when there is nothing to draw', () => {
    const empty = lineChart({ title: 't', xLabel: 'x', yLabel: 'y', series: [{ name: 'a', points: [[Number.NaN, 1]] }] });
    expect(empty).toContain('no data');
    expect(empty).not.toContain('<polyline');
  });
});
