import { describe, expect, it } from 'vitest';
import type { TableRow } from '../../../../electron/engine/experiment/aggregate';
import { COLUMNS, formatStat, renderMarkdown, renderText } from '../../../../electron/engine/experiment/format';

const row = (over: Partial<TableRow>): TableRow => ({
  env: 'retail',
  variant: 'envace',
  label: 'envace',
  n: 2,
  warmStart: 'yes',
  success: { mean: 0.25, std: 0.05, n: 2 },
  score: { mean: 0.5, std: 0.1, n: 2 },
  invalidActionRate: null,
  gatherEnvCalls: { mean: 300, std: 0, n: 2 },
  trainEnvCalls: { mean: 0, std: 0, n: 2 },
  testEnvCallsPerTask: null,
  tokensPerTask: null,
  fidelity: null,
  trainWallS: null,
  evalWallS: null,
  ...over,
});

describe('formatStat', () => {
  it('mean ± std, the mean alone for one seed, a dash for nothing', () => {
    expect(formatStat({ mean: 0.123456, std: 0.0456, n: 3 }, 3)).toBe('0.123 ± 0.046');
    expect(formatStat({ mean: 42.4, std: null, n: 1 }, 0)).toBe('42');
    expect(formatStat(null, 2)).toBe('—');
  });
});

describe('renderText and renderMarkdown', () => {
  const rows = [
    row({}),
    row({ variant: 'grpo-real', label: 'grpo-real | x', trainEnvCalls: { mean: 120, std: null, n: 1 } }),
    row({ env: 'household', n: 0, success: null }),
  ];

  it('the text table has one block per env, a header and one line per row, columns aligned', () => {
    const text = renderText(rows);
    const lines = text.split('\n');
    expect(lines[0]).toBe('retail');
    expect(lines[1].startsWith('method')).toBe(true);
    expect(lines[2]).toContain('0.250 ± 0.050');
    expect(lines[3]).toContain('120');
    // Aligned: the success column starts at the same offset in the header and each row.
    const at = lines[1].indexOf('success');
    expect(lines[2].slice(at).startsWith('0.250 ± 0.050')).toBe(true);
    expect(lines[5]).toBe('household');
    expect(text).toContain('sample std');
  });

  it('markdown: a section per env, a header row with every column, pipes in cells escaped', () => {
    const md = renderMarkdown(rows, 'title');
    expect(md.startsWith('# title\n')).toBe(true);
    expect(md).toContain('## retail');
    expect(md).toContain('## household');
    const header = md.split('\n').find((l) => l.startsWith('| method'))!;
    expect(header.split(' | ')).toHaveLength(COLUMNS.length);
    expect(md).toContain('grpo-real \\| x');
    const householdRow = md.split('\n').filter((l) => l.startsWith('| envace'))[1];
    expect(householdRow).toContain('| 0 | — | — |');
  });
});
