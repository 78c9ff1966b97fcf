import { defineConfig } from 'vitest/config';
import { patience } from './test/helpers/patience';
import HeavyFirstSequencer from './test/helpers/heavy-first-sequencer';

// One runner for every layer. Heavy suites (ORT, Playwright) get long timeouts; speed is measured
// by `envace bench`, never asserted here. Every limit is a hang guard scaled by the machine's load
// (test/helpers/patience.ts): a loaded laptop must pass the same suite a quiet one does.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: patience(120_000),
    hookTimeout: patience(180_000),
    // expect.poll's default (1 s) is a race on a busy machine: UI and engine waits poll for longer.
    expect: { poll: { timeout: patience(5_000) } },
    pool: 'forks',
    maxWorkers: 2,
    // The longest files start first, cache or none (test/helpers/heavy-first-sequencer.ts).
    sequence: { sequencer: HeavyFirstSequencer },
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
