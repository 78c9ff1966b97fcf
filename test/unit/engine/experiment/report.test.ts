import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { charts, renderHuman, summarize, writeReport } from '../../../../electron/engine/experiment/report';
import type { ExperimentResult, Measurement } from '../../../../electron/engine/experiment/runner';
import { SUITES } from '../../../../electron/engine/experiment/suite';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-exp-report-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const m = (over: Partial<Measurement>): Measurement => ({
  env: 'retail',
  seed: 1,
  variant: { method: 'envace', testTime: null },
  runId: 'run-a',
  step: 12,
  warmStart: true,
  success: 0.5,
  meanScore: 0.6,
  invalidActionRate: 0.1,
  envCallsPerTask: 1,
  tokensPerTask: 50,
  evalWallMs: 2000,
  fidelity: null,
  gatherEnvCalls: 0,
  trainEnvCalls: 0,
  trainEnvCallsTotal: 0,
  trainWallMs: 4000,
  ...over,
});

const suite = {
  ...SUITES.quick,
  envs: [SUITES.quick.envs[0]],
  seeds: [1],
  methods: ['envace', 'grpo-real'] as const,
  testTime: { modes: ['parallel' as const], rehearsals: [2] },
};
const result: ExperimentResult = {
  suite: { ...suite, methods: [...suite.methods] },
  startedAt: 0,
  wallMs: 90_000,
  measurements: [m({}), m({ variant: { method: 'grpo-real', testTime: null }, runId: 'run-b', trainEnvCalls: 33, success: 0.25 })],
  curves: [
    { env: 'retail', seed: 1, method: 'envace', kind: 'reward', source: 'reward', steps: [1, 2], values: [0.1, 0.2] },
    { env: 'retail', seed: 1, method: 'grpo-real', kind: 'reward', source: 'reward', steps: [1, 2], values: [0.3, 0.1] },
    { env: 'retail', seed: 1, method: 'envace', kind: 'fidelity', source: 'reality-check', steps: [2], values: [0.4] },
  ],
  failures: [{ env: 'retail', seed: 1, methods: ['paw'], runId: 'run-c', error: 'boom' }],
};

describe('experiment report', () => {
  const summary = summarize(result);

  it('summarize: rows in table order with the measured figures; unmeasured variants stay empty', () => {
    expect(summary.rows.map((r) => r.label)).toEqual(['grpo-real', 'envace', 'envace + TT parallel N=2']);
    expect(summary.rows[0]).toMatchObject({ n: 1, trainEnvCalls: { mean: 33 }, success: { mean: 0.25 } });
    expect(summary.rows[1]).toMatchObject({ trainEnvCalls: { mean: 0 }, trainWallS: { mean: 4 }, evalWallS: { mean: 2 } });
    expect(summary.rows[2].n).toBe(0);
    expect(summary.curves).toHaveLength(3);
  });

  it('one reward and one fidelity chart per env, each with its methods’ series', () => {
    const files = charts(summary);
    expect(files.map((f) => f.file)).toEqual(['retail-reward.svg', 'retail-fidelity.svg']);
    expect((files[0].svg.match(/<polyline/g) ?? []).length).toBe(2);
    expect(files[1].svg).toContain('envace (reality-check)');
  });

  it('writes table.json (the summary), table.md and the charts; the human text lists failures', () => {
    const written = writeReport(path.join(dir, 'out'), summary);
    expect(written.map((f) => path.basename(f))).toEqual(['table.json', 'table.md', 'retail-reward.svg', 'retail-fidelity.svg']);
    const json = JSON.parse(fs.readFileSync(written[0], 'utf8'));
    expect(json.rows).toHaveLength(3);
    expect(json.failures[0].error).toBe('boom');
    expect(fs.readFileSync(written[1], 'utf8')).toContain('| envace | 1 | yes | 0.500 |');
    expect(renderHuman(summary)).toContain('retail seed 1 paw: boom');
  });
});
