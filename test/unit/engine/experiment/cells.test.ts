import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CELLS_FILE, CellStore, parseCells } from '../../../../electron/engine/experiment/cells';
import { SUITES, SuiteError } from '../../../../electron/engine/experiment/suite';
import { evalCell, runCell } from './fixtures';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-exp-cells-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('CellStore', () => {
  it('keeps the suite and each appended cell; reopening gives them back in order', () => {
    const dir = path.join(root, 'a');
    const store = CellStore.create(dir, SUITES.quick, 123);
    store.append(runCell('sft', 1));
    store.append(evalCell('sft', 1, 'heldout', { success: 0.5 }));
    const again = CellStore.open(dir);
    expect(again.header).toEqual({ version: 1, suite: SUITES.quick, createdAt: 123 });
    expect(again.cells.map((c) => c.key)).toEqual(['retail/1/sft', 'retail/1/sft/heldout']);
    expect(again.cells[1]).toEqual(evalCell('sft', 1, 'heldout', { success: 0.5 }));
  });

  it('a line cut short by a crash is skipped, and the next cell starts on a line of its own', () => {
    const dir = path.join(root, 'b');
    const store = CellStore.create(dir, SUITES.quick);
    store.append(runCell('sft', 1));
    fs.appendFileSync(path.join(dir, CELLS_FILE), '{"kind":"eval","key":"retail/1/sft/hel');
    const reopened = CellStore.open(dir);
    expect(reopened.cells.map((c) => c.key)).toEqual(['retail/1/sft']);
    reopened.append(runCell('envace', 1));
    expect(CellStore.open(dir).cells.map((c) => c.key)).toEqual(['retail/1/sft', 'retail/1/envace']);
  });

  it('a folder that holds an experiment is not started over; one without is not resumed', () => {
    const dir = path.join(root, 'c');
    CellStore.create(dir, SUITES.quick);
    expect(() => CellStore.create(dir, SUITES.full)).toThrow(SuiteError);
    expect(() => CellStore.create(dir, SUITES.full)).toThrow(/--resume/);
    expect(() => CellStore.open(path.join(root, 'none'))).toThrow(/holds no experiment/);
  });

  it('parseCells ignores blank lines and lines that are not cells', () => {
    expect(parseCells('\n{"kind":"other","key":"x"}\n[1]\n').length).toBe(0);
  });
});
