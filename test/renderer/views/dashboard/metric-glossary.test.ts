import { describe, expect, it } from 'vitest';
import { explainMetric } from '../../../../renderer/src/format/metric-glossary';

describe('metric glossary', () => {
  it('explains the metrics a newcomer asks about, and any loss term', () => {
    for (const key of ['clip_frac', 'ratio_mean', 'format_error_rate', 'eval/success']) expect(explainMetric(key)).not.toBe('');
    expect(explainMetric('loss/new_term')).toMatch(/new_term/);
    expect(explainMetric('no_such_metric')).toBe('');
  });
});
