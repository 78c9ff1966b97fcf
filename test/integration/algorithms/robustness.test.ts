import { beforeAll, describe, expect, it } from 'vitest';
import { formatAction } from '../../../electron/engine/envs/parser';
import { getEnv } from '../../../electron/engine/envs/registry';
import type { Task, ToolEnv } from '../../../electron/engine/envs/types';
import { promptSegments, flatten, systemText } from '../../../electron/engine/algorithms/layout';
import { evaluateRobustness, fillerIds, FILLER_WORDS, ROBUSTNESS_SIZES } from '../../../electron/engine/algorithms/robustness';
import type { RolloutSettings } from '../../../electron/engine/algorithms/rollout';
import { scriptedPolicy } from './scripted-policy';

const settings: RolloutSettings = {
  maxTurns: 3,
  maxTokensPerTurn: 200,
  maxObservationTokens: 3000,
  temperature: 0,
  topP: 1,
  pReal: 0,
  toolSchemas: 'none',
  rehearsePrompt: 'inline',
};
const TEMPLATE = /status of order (#W\d+)/;
let env: ToolEnv;
let tasks: Task[];

const lookup = (orderId: string) => formatAction({ kind: 'calls', calls: [{ name: 'get_order_details', arguments: { order_id: orderId } }] });
/** After the look-up both policies read the status from the observation (the copying under test is the id's). */
const answer = (prompt: string) => `<answer>${/"status":"(\w+)"/.exec(prompt.slice(prompt.lastIndexOf('<|obs|>')))?.[1] ?? 'unknown'}</answer>`;
const firstAct = (prompt: string) => prompt.split('<|act|>').length === 2;
/** Rehearsed observations (the memory cell's private rehearsal): the look-up's shape, status unknown. */
const obs = () => '{"status":"pending"}';

/** Finds the order id by its pattern in the user text, wherever the text sits in the prompt. */
const byContent = () =>
  scriptedPolicy({ act: (p) => (firstAct(p) ? lookup(TEMPLATE.exec(p.slice(p.indexOf('<|user|>')))?.[1] ?? '') : answer(p)), obs });

/**
 * Copies the id's tokens from where they sat in the first task's unperturbed prompt: counted from the
 * prompt's start (`from: 'start'`) or back from its end (`'end'`, i.e. relative to the `<|act|>` marker).
 */
function byPosition(from: 'start' | 'end') {
  const policy = scriptedPolicy({ act: () => '', obs });
  const ids = [
    ...flatten(
      promptSegments(policy.tokenizer, policy.specials, { system: systemText(env.description, [], 'none'), instruction: tasks[0].instruction }, 600),
    ),
    policy.specials.act,
  ];
  const id = policy.tokenizer.encode(TEMPLATE.exec(tasks[0].instruction)![1], { parseSpecial: false });
  const at = ids.findIndex((_, i) => id.every((x, k) => ids[i + k] === x));
  expect(at).toBeGreaterThan(0);
  const copy = (prompt: readonly number[]) => {
    const start = from === 'start' ? at : prompt.length - (ids.length - at);
    return policy.tokenizer.decode(prompt.slice(start, start + id.length));
  };
  return scriptedPolicy({ act: (p, prompt) => (firstAct(p) ? lookup(copy(prompt)) : answer(p)), obs });
}

beforeAll(async () => {
  env = await getEnv('retail', { worldSize: 5, counts: { train: 2, heldout: 60, ood: 0 } });
  tasks = env
    .tasks('heldout')
    .map((t) => env.task(t.id))
    .filter((t) => TEMPLATE.test(t.instruction));
  expect(tasks.length).toBeGreaterThanOrEqual(3);
  // One template, so every task's id sits at the same token offset (and has the same token length).
  expect(new Set(tasks.map((t) => t.instruction.length)).size).toBe(1);
});

describe('robustness evaluation', () => {
  it('a policy that copies the id by position succeeds unperturbed and fails the verdict; one that copies by content passes', async () => {
    const run = (policy: ReturnType<typeof byContent>) => evaluateRobustness(policy, env, tasks, settings, { seed: 3, rehearsalTemperature: 1 });
    const content = await run(byContent());
    expect(content.base.success).toBe(1);
    expect(content.robustness.passed).toBe(true);
    expect(content.robustness.cells.every((c) => c.success === 1 && c.delta === 0)).toBe(true);
    // Cells: unperturbed, 3 sites × 4 sizes, the rehearsal memory.
    expect(content.robustness.cells).toHaveLength(1 + 3 * ROBUSTNESS_SIZES.length + 1);
    expect(content.robustness.cells.at(-1)).toMatchObject({ perturbation: 'memory', where: 'memory' });
    expect(content.robustness.cells.at(-1)!.tokens).toBeGreaterThan(0);

    for (const from of ['start', 'end'] as const) {
      const { base, robustness } = await run(byPosition(from));
      expect(base.success).toBe(1);
      expect(robustness.passed).toBe(false);
      expect(robustness.worstDrop).toBe(1);
      const failed = robustness.cells.filter((c) => c.delta < 0);
      // Counted from the start, only text before the id moves it (the system text); counted from the
      // end, only text after it (the instruction's end, a memory block).
      if (from === 'start') expect(new Set(failed.map((c) => c.where))).toEqual(new Set(['system']));
      else expect(new Set(failed.map((c) => c.where))).toEqual(new Set(['instruction', 'memory']));
      expect(failed.every((c) => c.success === 0)).toBe(true);
    }
  });

  it('filler is exactly n ordinary-word ids, the same for the same seed, different for another', () => {
    const { tokenizer } = scriptedPolicy({ act: () => '', obs });
    for (const n of [1, 4, 16, 64]) expect(fillerIds(tokenizer, n, 7)).toHaveLength(n);
    expect(fillerIds(tokenizer, 16, 7)).toEqual(fillerIds(tokenizer, 16, 7));
    expect(fillerIds(tokenizer, 16, 7)).not.toEqual(fillerIds(tokenizer, 16, 8));
    const words = new Set<string>(FILLER_WORDS);
    const text = tokenizer
      .decode(fillerIds(tokenizer, 64, 7))
      .trim()
      .split(/\s+/);
    // The last word may be cut to make the count exact.
    expect(text.slice(0, -1).every((w) => words.has(w))).toBe(true);
  });

  it('the insertion is rendered inside the chosen block, before its end marker', () => {
    const { tokenizer, specials: sp } = scriptedPolicy({ act: () => '', obs });
    const ids = fillerIds(tokenizer, 4, 1);
    const parts = { system: 'sys', instruction: 'do it' };
    const plain = promptSegments(tokenizer, sp, parts, 100);
    for (const where of ['system', 'instruction'] as const) {
      const segs = promptSegments(tokenizer, sp, { ...parts, insertion: { where, ids } }, 100);
      const k = where === 'system' ? 0 : 1;
      expect(segs[k].ids).toEqual([...plain[k].ids.slice(0, -1), ...ids, sp.end]);
      expect(segs[1 - k]).toEqual(plain[1 - k]);
    }
    const memory = promptSegments(tokenizer, sp, { ...parts, insertion: { where: 'memory', ids } }, 100);
    expect(memory.map((s) => s.role)).toEqual(['prompt', 'prompt', 'memory']);
    expect(memory[2].ids).toEqual([sp.memory, ...ids, sp.end]);
  });
});
