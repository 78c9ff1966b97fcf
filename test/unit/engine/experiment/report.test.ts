import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { charts, renderHuman, summarize, writeReport } from '../../../../electron/engine/experiment/report';
import type { ExperimentResult } from '../../../../electron/engine/experiment/runner';
import { SUITES } from '../../../../electron/engine/experiment/suite';
import { evalCell, runCell } from './fixtures';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-exp-report-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const result: ExperimentResult = {
  suite: { ...SUITES.quick, seeds: [1], methods: ['sft', 'envace', 'grpo-real'], testTime: { modes: ['parallel'], rehearsals: [2] } },
  startedAt: 0,
  wallMs: 90_000,
  cells: [
    runCell('sft', 1, { gatherEnvCalls: 300 }),
    evalCell('sft', 1, 'heldout', { success: 0.25 }),
    runCell('grpo-real', 1, {
      trainEnvCalls: 33,
      curves: [
        { source: 'reward', steps: [1, 2], values: [0.3, 0.1] },
        { source: 'reward/act', steps: [1, 2], values: [0.3, 0.1] },
      ],
    }),
    evalCell('grpo-real', 1, 'heldout', { success: 0.5 }),
    runCell('envace', 1, {
      curves: [
        { source: 'reward', steps: [1, 2], values: [0.1, 0.2] },
        { source: 'reward/act', steps: [1, 2], values: [0.1, 0.2] },
        { source: 'reward/rehearse', steps: [1, 2], values: [0.2, 0.2] },
        { source: 'reality-check', steps: [1, 2], values: [0.4, 0.5] },
      ],
    }),
    evalCell('envace', 1, 'heldout', { success: 0.125 }),
  ],
  failures: [{ env: 'retail', seed: 1, method: 'paw', runId: 'run-c', error: 'boom' }],
};

describe('experiment report', () => {
  const summary = summarize(result);

  it('summarize: rows in table order with the paired Δ; unmeasured variants stay empty', () => {
    expect(summary.rows.map((r) => r.label)).toEqual(['SFT only', 'grpo-real', 'envace', 'SFT only + TT parallel N=2', 'envace + TT parallel N=2']);
    expect(summary.rows[1]).toMatchObject({ n: 1, trainEnvCalls: { mean: 33 }, gatherEnvCalls: { mean: 300 }, heldout: { deltaSuccess: { mean: 0.25, signs: ['+'] } } });
    expect(summary.rows[2].heldout.deltaSuccess).toMatchObject({ mean: -0.125, signs: ['−'] });
    expect(summary.rows[4].n).toBe(0);
    expect(summary.curves).toHaveLength(6);
  });

  it('per env one chart of reward, of each role’s reward and of fidelity, each with its methods’ series', () => {
    const files = charts(summary);
    expect(files.map((f) => f.file)).toEqual(['retail-reward.svg', 'retail-reward-act.svg', 'retail-reward-rehearse.svg', 'retail-fidelity.svg']);
    const lines = (svg: string) => (svg.match(/<polyline/g) ?? []).length;
    expect(files.map((f) => lines(f.svg))).toEqual([2, 2, 1, 1]);
    expect(files[3].svg).toContain('envace (reality-check)');
  });

  it('writes table.json (the summary, cells included), table.md and the charts; the human text lists failures', () => {
    const written = writeReport(path.join(dir, 'out'), summary);
    expect(written.map((f) => path.basename(f))).toEqual([
      'table.json',
      'table.md',
      'retail-reward.svg',
      'retail-reward-act.svg',
      'retail-reward-rehearse.svg',
      'retail-fidelity.svg',
    ]);
    const json = JSON.parse(fs.readFileSync(written[0], 'utf8'));
    expect(json.rows).toHaveLength(5);
    expect(json.cells).toHaveLength(6);
    expect(json.failures[0].error).toBe('boom');
    expect(fs.readFileSync(written[1], 'utf8')).toContain('| grpo-real | 1 | 0.500 | +0.250 [+] |');
    expect(renderHuman(summary)).toContain('retail seed 1 paw: boom');
  });
});
