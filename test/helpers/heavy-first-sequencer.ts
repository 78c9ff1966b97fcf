import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest files, longest first (per-file figures of a full run on two cores). Vitest orders by
 * the durations it cached on the last run, and without that cache (a fresh CI checkout) by file
 * size, which put the 700-s Quickstart e2e, a 130-line file, near the end: one worker ran it alone
 * for minutes after the other had finished. Starting these first lets the rest fill in around them.
 */
export const HEAVY_FIRST = [
  'test/e2e/web-mode-newcomer.test.ts',
  'test/parity/gguf-export-smollm2.parity.test.ts',
  'test/integration/algorithms/recipe-format.test.ts',
  'test/integration/algorithms/robust-copying.test.ts',
  'test/integration/algorithms/training.test.ts',
  'test/integration/mcp-user-server.test.ts',
  'test/integration/algorithms/procedural-learning.test.ts',
];

export default class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = HEAVY_FIRST.findIndex((p) => f.moduleId.endsWith(p));
      return i < 0 ? HEAVY_FIRST.length : i;
    };
    const rest = await super.sort(files);
    // A stable sort: the files off the list keep the base order among themselves.
    return rest.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  }
}
