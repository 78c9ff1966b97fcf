import { describe, expect, it } from 'vitest';
import { aggregate } from '../../../../electron/engine/experiment/aggregate';
import { COST_COLUMNS, RESULT_COLUMNS, formatDelta, formatStat, renderMarkdown, renderText } from '../../../../electron/engine/experiment/format';
import type { Method } from '../../../../electron/engine/experiment/suite';
import { evalCell, runCell } from './fixtures';

describe('formatStat and formatDelta', () => {
  it('mean ± std, the mean alone for one seed, a dash for nothing', () => {
    expect(formatStat({ mean: 0.123456, std: 0.0456, n: 3 }, 3)).toBe('0.123 ± 0.046');
    expect(formatStat({ mean: 42.4, std: null, n: 1 }, 0)).toBe('42');
    expect(formatStat(null, 2)).toBe('—');
  });

  it('a Δ carries its sign and the sign of each seed', () => {
    expect(formatDelta({ mean: 0.05, std: 0.02, n: 3, signs: ['+', '+', '−'] }, 3)).toBe('+0.050 ± 0.020 [++−]');
    expect(formatDelta({ mean: -0.25, std: null, n: 1, signs: ['−', '·'] }, 2)).toBe('−0.25 [−·]');
    expect(formatDelta({ mean: 0, std: 0, n: 2, signs: ['0', '0'] }, 1)).toBe('0.0 ± 0.0 [00]');
    expect(formatDelta(null, 3)).toBe('—');
  });
});

describe('renderText and renderMarkdown', () => {
  const suite = { envs: [{ env: 'retail' }, { env: 'household' }], seeds: [1, 2], methods: ['sft', 'grpo-real'] as Method[], testTime: { modes: [], rehearsals: [] } };
  const rows = aggregate(
    [
      evalCell('sft', 1, 'heldout', { success: 0.25 }),
      evalCell('sft', 2, 'heldout', { success: 0.25 }),
      evalCell('grpo-real', 1, 'heldout', { success: 0.5 }),
      evalCell('grpo-real', 2, 'heldout', { success: 0.3 }),
      runCell('grpo-real', 1, { trainEnvCalls: 120 }),
    ],
    suite,
  );
  rows[1].label = 'grpo-real | x';

  it('per env a results table and a costs table, each a header and one aligned line per row', () => {
    const text = renderText(rows);
    const lines = text.split('\n');
    expect(lines[0]).toBe('retail — results');
    expect(lines[1].startsWith('method')).toBe(true);
    const at = lines[1].indexOf('Δ held-out success');
    expect(lines[3].slice(at).startsWith('+0.150 ± 0.141 [++]')).toBe(true);
    expect(lines[2].slice(at).startsWith('—')).toBe(true);
    expect(lines[5]).toBe('retail — costs and diagnostics');
    expect(lines[8].split(/\s{2,}/)[2]).toBe('120');
    expect(text).toContain('household — results');
    expect(text).toContain('sample std');
  });

  it('markdown: a section per env and table, every column in the header, pipes in cells escaped', () => {
    const md = renderMarkdown(rows, 'title');
    expect(md.startsWith('# title\n')).toBe(true);
    expect(md).toContain('## retail\n\n### results');
    expect(md).toContain('### costs and diagnostics');
    const headers = md.split('\n').filter((l) => l.startsWith('| method'));
    expect(headers.map((h) => h.split(' | ').length)).toEqual([RESULT_COLUMNS.length, COST_COLUMNS.length, RESULT_COLUMNS.length, COST_COLUMNS.length]);
    expect(md).toContain('grpo-real \\| x');
    expect(md).toContain('| grpo-real \\| x | 2 | 0.400 ± 0.141 | +0.150 ± 0.141 [++] |');
  });
});
