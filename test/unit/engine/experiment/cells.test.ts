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
    store.close();
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
    store.close();
    const reopened = CellStore.open(dir);
    expect(reopened.cells.map((c) => c.key)).toEqual(['retail/1/sft']);
    reopened.append(runCell('envace', 1));
    reopened.close();
    expect(CellStore.open(dir).cells.map((c) => c.key)).toEqual(['retail/1/sft', 'retail/1/envace']);
  });

  it('a folder that holds an experiment is not started over; one without is not resumed', () => {
    const dir = path.join(root, 'c');
    CellStore.create(dir, SUITES.quick);
    expect(() => CellStore.create(dir, SUITES.full)).toThrow(SuiteError);
    expect(() => CellStore.create(dir, SUITES.full)).toThrow(/--resume/);
    expect(() => CellStore.open(path.join(root, 'none'))).toThrow(/holds no experiment/);
  });

  it('one process works in a folder at a time: a second open is refused until the first closes', () => {
    const dir = path.join(root, 'd');
    const first = CellStore.create(dir, SUITES.quick);
    expect(() => CellStore.open(dir)).toThrow(/another envace experiment is working in/);
    first.close();
    CellStore.open(dir).close();
  });

  it('a corrupt experiment.json is a SuiteError naming the file, and is left as it is', () => {
    const dir = path.join(root, 'e');
    CellStore.create(dir, SUITES.quick).close();
    fs.writeFileSync(path.join(dir, 'experiment.json'), '{"version": 1, "sui');
    expect(() => CellStore.open(dir)).toThrow(SuiteError);
    expect(() => CellStore.open(dir)).toThrow(/experiment\.json cannot be read as an experiment/);
    expect(fs.readFileSync(path.join(dir, 'experiment.json'), 'utf8')).toBe('{"version": 1, "sui');
    fs.writeFileSync(path.join(dir, 'experiment.json'), 'null');
    expect(() => CellStore.open(dir)).toThrow(/unknown version/);
  });

  it('the run in flight is noted by cell key, and only that key reads it', () => {
    const dir = path.join(root, 'f');
    const store = CellStore.create(dir, SUITES.quick);
    store.setInFlight('retail/1/sft', 'run-1');
    expect(store.inFlight('retail/1/sft')).toBe('run-1');
    expect(store.inFlight('retail/1/envace')).toBeUndefined();
    store.close();
  });

  it('parseCells ignores blank lines and lines that are not cells', () => {
    expect(parseCells('\n{"kind":"other","key":"x"}\n[1]\n').length).toBe(0);
  });
});
