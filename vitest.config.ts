import { defineConfig } from 'vitest/config';

// One runner for every layer. Heavy suites (ORT, Playwright) get long timeouts;
// speed is measured by `envace bench`, never asserted here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
