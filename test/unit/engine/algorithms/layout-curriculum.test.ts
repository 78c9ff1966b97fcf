import { describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { fixedLayoutRows, layoutCurriculumProblem, usesLayoutCurriculum, variedShare, withLayoutCurriculum } from '../../../../electron/engine/algorithms/layout-curriculum';

describe('layout curriculum', () => {
  it('shows every row fixed through fixedLayoutSteps, ramps linearly, then every row varied', () => {
    const sft = { fixedLayoutSteps: 100, layoutRampSteps: 50 };
    expect(variedShare(sft, 1)).toBe(0);
    expect(variedShare(sft, 100)).toBe(0);
    expect(variedShare(sft, 101)).toBeCloseTo(1 / 50);
    expect(variedShare(sft, 125)).toBeCloseTo(0.5);
    expect(variedShare(sft, 150)).toBe(1);
    expect(variedShare(sft, 400)).toBe(1);
    // No ramp: a hard switch after the fixed steps; off: every row varied from step 1.
    expect(variedShare({ fixedLayoutSteps: 10, layoutRampSteps: 0 }, 10)).toBe(0);
    expect(variedShare({ fixedLayoutSteps: 10, layoutRampSteps: 0 }, 11)).toBe(1);
    expect(variedShare({ fixedLayoutSteps: 0, layoutRampSteps: 0 }, 1)).toBe(1);
  });

  it('draws the fixed rows from (seed, step): deterministic, and about the ramp share', () => {
    const sft = { fixedLayoutSteps: 0, layoutRampSteps: 1000 };
    expect(fixedLayoutRows(sft, 3, 500, 8)).toEqual(fixedLayoutRows(sft, 3, 500, 8));
    const rows = Array.from({ length: 200 }, (_, i) => fixedLayoutRows(sft, 3, 250 + (i % 3), 8)).flat();
    const fixedShare = rows.filter(Boolean).length / rows.length;
    expect(fixedShare).toBeGreaterThan(0.65);
    expect(fixedShare).toBeLessThan(0.85);
    expect(fixedLayoutRows({ fixedLayoutSteps: 5, layoutRampSteps: 0 }, 3, 5, 4)).toEqual([true, true, true, true]);
    expect(fixedLayoutRows({ fixedLayoutSteps: 5, layoutRampSteps: 0 }, 3, 6, 4)).toEqual([false, false, false, false]);
  });

  it("swaps a fixed row for the same task's fixed rendering, and keeps the varied one where there is none", () => {
    const batch = [{ taskId: 'a', text: 'varied a' }, { taskId: 'b', text: 'varied b' }, { taskId: 'c', text: 'varied c' }];
    const fixed = new Map([['a', { taskId: 'a', text: 'fixed a' }], ['c', { taskId: 'c', text: 'fixed c' }]]);
    const during = withLayoutCurriculum({ fixedLayoutSteps: 10, layoutRampSteps: 0 }, 1, 3, batch, fixed);
    expect(during.batch.map((d) => d.text)).toEqual(['fixed a', 'varied b', 'fixed c']);
    expect(during.fixedRows).toBe(2);
    const after = withLayoutCurriculum({ fixedLayoutSteps: 10, layoutRampSteps: 0 }, 1, 11, batch, fixed);
    expect(after.batch.map((d) => d.text)).toEqual(['varied a', 'varied b', 'varied c']);
    expect(after.fixedRows).toBe(0);
  });

  it('is refused, naming the knob to change, where it cannot apply', () => {
    const cfg = (over: Record<string, unknown>) => RunConfig.parse({ env: 'retail', layout: 'varied', sft: { fixedLayoutSteps: 100 }, ...over });
    expect(layoutCurriculumProblem(cfg({}))).toBeUndefined();
    expect(usesLayoutCurriculum(cfg({}))).toBe(true);
    expect(layoutCurriculumProblem(cfg({ layout: 'fixed' }))).toMatch(/layout is 'fixed': set layout to varied/);
    expect(layoutCurriculumProblem(cfg({ env: 'household' }))).toMatch(/need an env with layouts \(retail\)/);
    expect(layoutCurriculumProblem(cfg({ sft: { fixedLayoutSteps: 100, demonstrations: 'file', demonstrationsFile: '/x.jsonl' } }))).toMatch(/demonstrations file has one/);
    // Off: nothing to refuse, whatever the layout.
    const off = RunConfig.parse({ env: 'household' });
    expect(usesLayoutCurriculum(off)).toBe(false);
    expect(layoutCurriculumProblem(off)).toBeUndefined();
  });
});
