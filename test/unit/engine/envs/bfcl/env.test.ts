import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBfcl, matchesAllowed } from '../../../../../electron/engine/envs/bfcl/checker';
import { BfclDataError, loadCategory, type BfclFunction, type GroundTruthCall } from '../../../../../electron/engine/envs/bfcl/data';
import { BfclEnv } from '../../../../../electron/engine/envs/bfcl/env';
import type { Action, JsonValue, Task, ToolCall } from '../../../../../electron/engine/envs/types';
import { runEpisode, scriptedPolicy, silentPolicy } from '../household/drive';

// Reads the real BFCL v4 files from the shared data folder (ENVACE_DATA_DIR or ../shared/data).
const env = new BfclEnv();
const truthOf = (t: Task) => t.meta!.groundTruth as unknown as GroundTruthCall[];
const functionsOf = (t: Task) => t.meta!.functions as unknown as BfclFunction[];
const isIrrelevance = (t: Task) => String(t.meta!.category).endsWith('irrelevance');

/** A value the allowed list does not accept (undefined if the obvious edits are all allowed). */
function perturb(value: JsonValue, allowed: JsonValue[]): JsonValue | undefined {
  const candidates: JsonValue[] =
    typeof value === 'string' ? [`${value} zz9`]
    : typeof value === 'number' ? [Number.isInteger(value) ? value + 1000 : value + 1000.5]
    : typeof value === 'boolean' ? [!value]
    : Array.isArray(value) ? [[...value, value[0] ?? 'zz9']]
    : value === null ? ['zz9']
    : [{ ...value, zz9: 1 }];
  return candidates.find((c) => !matchesAllowed(c, allowed));
}

/** The gold calls with one argument changed to a value the answer does not allow (or the name changed). */
function perturbCalls(task: Task): ToolCall[] {
  const calls = structuredClone(task.gold.calls);
  const truth = truthOf(task);
  for (const c of calls) {
    const expected = truth.find((e) => e.name === c.name)!;
    for (const [param, value] of Object.entries(c.arguments)) {
      const wrong = perturb(value, expected.params[param]);
      if (wrong !== undefined) {
        c.arguments[param] = wrong;
        return calls;
      }
    }
  }
  calls[0].name = `${calls[0].name}_zz9`;
  return calls;
}

describe('bfcl: splits', () => {
  it('trains on live_* items, holds out the non-live python categories, and has no ood split', () => {
    const categories = (split: 'train' | 'heldout') => new Set(env.tasks(split).map((r) => String(env.task(r.id).meta!.category)));
    expect([...categories('train')].sort()).toEqual(['live_irrelevance', 'live_multiple', 'live_parallel', 'live_parallel_multiple', 'live_simple']);
    expect([...categories('heldout')].sort()).toEqual(['irrelevance', 'multiple', 'parallel', 'parallel_multiple', 'simple_python']);
    expect(env.tasks('ood')).toEqual([]);
    expect(env.tools()).toEqual([]);
    expect(env.task('bfcl-simple_python_0').tools!.map((t) => t.name)).toEqual(['calculate_triangle_area']);
  });

  it('skips only the few items whose answer breaks their own function doc, each with a reason', () => {
    env.tasks('train');
    env.tasks('heldout');
    const total = env.tasks('train').length + env.tasks('heldout').length + env.skipped.length;
    expect(env.skipped.length).toBeGreaterThan(0);
    expect(env.skipped.length / total).toBeLessThan(0.01);
    for (const s of env.skipped) expect(s.reason).toMatch(/function doc/);
  });
});

describe('bfcl: oracle and null policy through the real episode', () => {
  for (const split of ['train', 'heldout'] as const) {
    it(`the oracle passes every ${split} item (BFCL verdict and checklist)`, async () => {
      for (const ref of env.tasks(split)) {
        const task = env.task(ref.id);
        const run = await runEpisode(env, task, env.expert(task));
        expect(run.check.passed, `${task.id}: ${run.check.checks[0].detail}`).toBe(true);
        expect(run.checklist.score, task.id).toBe(1);
      }
    });

    it(`answering with no call fails every ${split} item except the irrelevance ones`, async () => {
      for (const ref of env.tasks(split)) {
        const task = env.task(ref.id);
        const run = await runEpisode(env, task, silentPolicy);
        expect(run.check.passed, task.id).toBe(isIrrelevance(task));
        expect(run.checklist.score, task.id).toBe(isIrrelevance(task) ? 1 : 0);
      }
    });
  }
});

describe('bfcl: every held-out possible answer passes the checker and a perturbed one fails', () => {
  it('holds for each held-out item', () => {
    let perturbedValues = 0;
    for (const ref of env.tasks('heldout')) {
      const task = env.task(ref.id);
      const truth = truthOf(task);
      expect(checkBfcl(task.gold.calls, truth, functionsOf(task)).passed, task.id).toBe(true);
      const wrong = isIrrelevance(task) ? [{ name: task.tools![0].name, arguments: {} }] : perturbCalls(task);
      if (!isIrrelevance(task) && wrong.every((c) => truth.some((e) => e.name === c.name))) perturbedValues++;
      expect(checkBfcl(wrong, truth, functionsOf(task)).passed, task.id).toBe(false);
    }
    // Nearly every item was failed by a changed argument value, not just a renamed function.
    expect(perturbedValues).toBeGreaterThan(env.tasks('heldout').length * 0.7);
  });

  it('one wrong argument in a parallel answer fails that call’s checklist item only, and the BFCL verdict', async () => {
    const task = env.tasks('heldout').map((r) => env.task(r.id)).find((t) => t.meta!.category === 'parallel' && t.gold.calls.length >= 2 && t.checklist.every((i) => i.kind === 'call' && Object.keys(i.args ?? {}).length > 0))!;
    const calls = structuredClone(task.gold.calls);
    const item = task.checklist[1] as { args: Record<string, JsonValue> };
    const [param, value] = Object.entries(item.args).find(([, v]) => typeof v === 'string' || typeof v === 'number')!;
    const target = calls.find((c) => c.arguments[param] === value)!;
    target.arguments[param] = typeof value === 'string' ? `${value} zz9` : (value as number) + 1000;
    const run = await runEpisode(env, task, scriptedPolicy([{ kind: 'calls', calls } as Action]));
    expect(run.check.passed).toBe(false);
    const failed = run.checklist.items.filter((i) => !i.passed).map((i) => i.index);
    expect(failed).toContain(1);
    expect(failed).not.toContain(0);
  });

  it('an invalid action ends the single turn and fails the verdict with the parser error', async () => {
    const task = env.task('bfcl-simple_python_0');
    const episode = await env.reset(task, 0);
    const step = await episode.step({ kind: 'invalid', error: "Error: Tool 'nope' not found", raw: '' });
    expect(step).toEqual({ observation: "Error: Tool 'nope' not found", done: true });
    expect((await episode.finalCheck()).checks[0].detail).toBe("the action was not valid: Error: Tool 'nope' not found");
  });
});

describe('bfcl: data loading errors', () => {
  it('a malformed line is reported with its file and line number; a missing file by path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'envace-bfcl-'));
    try {
      await mkdir(join(dir, 'possible_answer'));
      const good = JSON.stringify({ id: 'simple_python_0', question: [[{ role: 'user', content: 'hi' }]], function: [{ name: 'f', description: '', parameters: { type: 'dict', properties: {} } }] });
      await writeFile(join(dir, 'BFCL_v4_simple_python.json'), `${good}\n{"id": 3}\n`);
      expect(() => loadCategory(dir, 'simple_python')).toThrow(BfclDataError);
      expect(() => loadCategory(dir, 'simple_python')).toThrow(/BFCL_v4_simple_python\.json line 2: id:/);
      expect(() => loadCategory(dir, 'multiple')).toThrow(/cannot read BFCL file .*BFCL_v4_multiple\.json/);
      await writeFile(join(dir, 'BFCL_v4_simple_python.json'), `${good}\n`);
      await writeFile(join(dir, 'possible_answer', 'BFCL_v4_simple_python.json'), '');
      expect(() => loadCategory(dir, 'simple_python')).toThrow(/no possible answer for simple_python_0/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
