// NL assertions on the real tau2 data: a requirement only an LLM judge could check is listed as unchecked,
// kept out of the score, and a task with nothing else to check is never a success nor worth 1 for doing nothing.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { NL_ASSERTION_UNCHECKED, scoreChecklist } from '../../../../../electron/engine/envs/checklist';
import { dataPath } from '../../../../../electron/engine/envs/data-dir';
import { MockEnv } from '../../../../../electron/engine/envs/mock/env';
import { runEpisode } from '../../../../../electron/engine/envs/oracle';
import { TauRetailEnv } from '../../../../../electron/engine/envs/tau-retail/env';
import type { Action, EpisodeTranscript } from '../../../../../electron/engine/envs/types';
import { ChecklistBreakdown } from '../../../../../electron/contract/trajectories';

const sayDone = (): Action => ({ kind: 'answer', text: 'Done.' });
const transcript = (p: Partial<EpisodeTranscript> = {}): EpisodeTranscript => ({ calls: [], answer: 'Done.', messages: [], formatErrors: 0, ...p });
type RawTask = { id: string; evaluation_criteria?: { nl_assertions?: string[]; reward_basis?: string[]; actions?: unknown[] } | null };
const rawTasks = (domain: string) => JSON.parse(readFileSync(dataPath('tau2-bench', 'domains', domain, 'tasks.json'), 'utf8')) as RawTask[];

let mock: MockEnv;
let retail: TauRetailEnv;
beforeAll(() => {
  mock = new MockEnv();
  retail = new TauRetailEnv();
});

describe('NL assertions in the checklist', () => {
  it('a mock task judged only in words gets its assertions as unchecked items and no "did not write" items', () => {
    const raw = rawTasks('mock').find((t) => t.id === 'create_task_1_nl_eval')!;
    const task = mock.task(raw.id);
    expect(task.meta?.rewardBasis).toEqual(['NL_ASSERTION']);
    expect(task.checklist).toEqual(raw.evaluation_criteria!.nl_assertions!.map((text) => ({ kind: 'nl-assertion', weight: 0, text })));
  });

  it('answering "Done." without the requested create_task scores 0, unchecked, and is no success', async () => {
    const task = mock.task('create_task_1_nl_eval');
    const r = await runEpisode(mock, task, sayDone);
    expect(r.checklist.unchecked).toBe(true);
    expect(r.score).toBe(0);
    expect(r.success).toBe(false);
    expect(r.unchecked).toEqual(['NL_ASSERTION']);
    expect(r.checklist.items.map((i) => [i.passed, i.unchecked, i.detail])).toEqual(task.checklist.map(() => [false, true, NL_ASSERTION_UNCHECKED]));
    // The breakdown the store keeps and the GUI reads carries the flags through the contract.
    expect(ChecklistBreakdown.parse(r.checklist)).toEqual(r.checklist);
  });

  it('doing the requested call instead scores the same: nothing here can tell the two apart', async () => {
    const task = mock.task('create_task_1_nl_eval');
    let sent = false;
    const create: Action = { kind: 'calls', calls: [{ name: 'create_task', arguments: { user_id: 'user_1', title: 'Important Meeting' } }] };
    const r = await runEpisode(mock, task, () => (sent ? sayDone() : ((sent = true), create)));
    expect([r.score, r.success, r.checklist.unchecked]).toEqual([0, false, true]);
  });

  it('retail tasks with NL assertions in the basis list them unchecked beside the checks that do run, which alone make the score', async () => {
    const raws = rawTasks('retail').filter((t) => t.evaluation_criteria?.reward_basis?.includes('NL_ASSERTION') && t.evaluation_criteria.nl_assertions?.length);
    expect(raws.length).toBeGreaterThan(0);
    for (const raw of raws) {
      const task = retail.task(`tau2-${raw.id}`);
      const nl = task.checklist.filter((i) => i.kind === 'nl-assertion');
      expect(nl.map((i) => i.kind === 'nl-assertion' && i.text), raw.id).toEqual(raw.evaluation_criteria!.nl_assertions);
      // DB is in every such basis here, so something stays checkable: the calls, or "no write" items.
      expect(task.checklist.some((i) => i.kind !== 'nl-assertion' && i.weight > 0), raw.id).toBe(true);
    }
    // A no-write task (the DB must stay as it is): "Done." earns the no-write items' score, but the
    // unchecked assertion keeps it from being a success.
    const noWrite = raws.find((t) => !t.evaluation_criteria!.actions?.length)!;
    const r = await runEpisode(retail, retail.task(`tau2-${noWrite.id}`), sayDone);
    expect(r.checklist.items.filter((i) => i.unchecked).length).toBe(noWrite.evaluation_criteria!.nl_assertions!.length);
    expect([r.score, r.success, r.checklist.unchecked]).toEqual([1, false, undefined]);
  });

  it('NL assertions outside the reward basis are not in the checklist (tau2 does not score them)', () => {
    const outside = rawTasks('mock').filter((t) => t.evaluation_criteria?.nl_assertions?.length && t.evaluation_criteria.reward_basis && !t.evaluation_criteria.reward_basis.includes('NL_ASSERTION'));
    expect(outside.length).toBeGreaterThan(0);
    for (const raw of outside) expect(mock.task(raw.id).checklist.some((i) => i.kind === 'nl-assertion'), raw.id).toBe(false);
  });
});

describe('scoreChecklist with nl-assertion items', () => {
  it('leaves them out of the score whatever their weight', () => {
    const r = scoreChecklist(
      [
        { kind: 'call', weight: 1, name: 'get_user_details' },
        { kind: 'nl-assertion', weight: 5, text: 'The agent was polite' },
      ],
      transcript({ calls: [{ name: 'get_user_details', arguments: {} }] }),
    );
    expect(r.score).toBe(1);
    expect(r.unchecked).toBeUndefined();
    expect(r.items[1]).toMatchObject({ passed: false, unchecked: true, description: 'The agent was polite' });
  });

  it('still refuses a checklist with nothing positive to score and no assertion either', () => {
    expect(() => scoreChecklist([{ kind: 'call', weight: 0, name: 'x' }], transcript())).toThrow(/positive weight/);
  });
});
