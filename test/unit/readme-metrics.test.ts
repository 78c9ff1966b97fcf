import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { metricGlossary } from '../../renderer/src/format/metric-glossary';

/** README's Metrics section is copied by hand from the Dashboard's glossary; this keeps the copy true. */
describe("README's Metrics section", () => {
  it('says what the glossary says, line for line', () => {
    const readme = fs.readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('## Metrics'), readme.indexOf('## Benchmarks'));
    for (const [key, text] of Object.entries(metricGlossary)) expect(section, key).toContain(`- \`${key}\`: ${text}`);
  });
});
