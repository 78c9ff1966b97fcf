// The episode book behind `envace mcp serve`, driven directly (no MCP in between): scoring as a
// rollout scores, the episode-id convention, isolation, the cap and the turn budget.
import { beforeAll, describe, expect, it } from 'vitest';
import { RetailEnv } from '../../../../electron/engine/envs/retail/env';
import type { Task, ToolEnv } from '../../../../electron/engine/envs/types';
import { EpisodeBook, EpisodeRequestError } from '../../../../electron/engine/mcp-serve/episodes';
import { EPISODE_ID, servedTools, ServedToolsError } from '../../../../electron/engine/mcp-serve/tools';

let env: RetailEnv;
const CANCEL = 'heldout-0005-cancel-pending';

beforeAll(() => {
  env = new RetailEnv({ counts: { train: 12, heldout: 12, ood: 0 } });
});

async function replay(book: EpisodeBook, session: string, task: Task, episodeId?: string): Promise<string[]> {
  const seen: string[] = [];
  for (const call of task.gold.calls) {
    const out = await book.call(session, call.name, call.arguments, episodeId);
    expect(out.isError, out.text).toBe(false);
    seen.push(out.text);
  }
  return seen;
}

describe('EpisodeBook', () => {
  it('a gold replay without episode ids scores reward 1 and passes the end-state check', async () => {
    const book = new EpisodeBook(env, 'heldout');
    const task = env.task(CANCEL);
    const started = await book.start('s', { taskId: CANCEL });
    expect(started).toMatchObject({ task_id: CANCEL, instruction: task.instruction, max_turns: task.maxTurns });
    await replay(book, 's', task);
    const done = await book.finish('s', { answer: task.gold.answer! });
    expect(done).toMatchObject({ reward: 1, success: true, format_error: false, end_state: { passed: true }, turns: task.gold.calls.length + 1 });
    expect(book.openCount).toBe(0);
  });

  it('a wrong call lowers the reward; a call the grammar refuses is an error observation and a format error (reward 0)', async () => {
    const book = new EpisodeBook(env, 'heldout');
    const task = env.task(CANCEL);
    await book.start('s', { taskId: CANCEL });
    const [first, ...rest] = task.gold.calls;
    await book.call('s', first.name, { ...first.arguments, zip: '00000' });
    for (const call of rest) await book.call('s', call.name, call.arguments);
    const wrong = await book.finish('s', { answer: task.gold.answer! });
    expect(wrong.reward).toBeGreaterThan(0);
    expect(wrong.reward).toBeLessThan(1);
    expect(wrong.checklist.find((i) => !i.passed)?.description).toContain('find_user_id_by_name_zip');

    await book.start('s', { taskId: CANCEL });
    const bad = await book.call('s', 'get_order_details', { order: 1 });
    expect(bad).toEqual({ isError: true, text: expect.stringMatching(/^Error: invalid arguments for get_order_details/) });
    const unknown = await book.call('s', 'no_such_tool', {});
    expect(unknown).toEqual({ isError: true, text: "Error: Tool 'no_such_tool' not found" });
    await replay(book, 's', task);
    expect(await book.finish('s', { answer: task.gold.answer! })).toMatchObject({ reward: 0, format_error: true, success: false });
  });

  it('two open episodes of one write task never see each other’s writes', async () => {
    const book = new EpisodeBook(env, 'heldout');
    const task = env.task(CANCEL);
    const a = (await book.start('s', { taskId: CANCEL })).episode_id;
    const b = (await book.start('s', { taskId: CANCEL })).episode_id;
    await replay(book, 's', task, a);
    const order = { order_id: '#W8121088' };
    expect((await book.call('s', 'get_order_details', order, a)).text).toContain('"cancelled"');
    expect((await book.call('s', 'get_order_details', order, b)).text).toContain('"pending"');
    // B can still cancel: the order it sees was never touched.
    await replay(book, 's', task, b);
    for (const id of [a, b]) expect(await book.finish('s', { episodeId: id, answer: 'done' })).toMatchObject({ reward: 1, end_state: { passed: true } });
  });

  it('without an id the session’s one open episode is meant; none or several is refused in words', async () => {
    const book = new EpisodeBook(env, 'heldout');
    await expect(book.call('s', 'calculate', { expression: '1+1' })).rejects.toThrow(/no open episode in this session: call start_task first/);
    const a = (await book.start('s', { taskId: CANCEL })).episode_id;
    const b = (await book.start('s')).episode_id;
    await expect(book.call('s', 'calculate', { expression: '1+1' })).rejects.toThrow(new RegExp(`2 episodes are open in this session \\(${a}, ${b}\\); pass episode_id`));
    await expect(book.call('other', 'calculate', { expression: '1+1' })).rejects.toThrow(/no open episode in this session/);
    await expect(book.call('s', 'calculate', { expression: '1+1' }, 'ep-unknown')).rejects.toThrow(EpisodeRequestError);
    await book.finish('s', { episodeId: a });
    await expect(book.call('s', 'calculate', { expression: '1+1' }, a)).rejects.toThrow(`episode ${a} is closed: it was finished`);
    expect((await book.call('s', 'calculate', { expression: '1+1' })).text).toBe('2.0');
  });

  it('an episode id works from any session, after the session that started it ended, until finish', async () => {
    const book = new EpisodeBook(env, 'heldout');
    const task = env.task(CANCEL);
    const started = await book.start('first', { taskId: CANCEL });
    expect(started.episode_id).toMatch(/^ep-[0-9a-f]{32}$/);
    book.endSession('first');
    // The starting session's claim ended: a call there without an id finds nothing; with the id it goes on.
    await expect(book.call('first', 'calculate', { expression: '1' })).rejects.toThrow(/no open episode in this session/);
    // One session per call, as verl's MCP client makes them.
    for (const [i, call] of task.gold.calls.entries()) {
      const out = await book.call(`call-${i}`, call.name, call.arguments, started.episode_id);
      expect(out.isError, out.text).toBe(false);
    }
    expect(await book.finish('last', { episodeId: started.episode_id, answer: task.gold.answer! })).toMatchObject({ reward: 1, success: true, end_state: { passed: true } });
    await expect(book.call('again', 'calculate', { expression: '1' }, started.episode_id)).rejects.toThrow(`episode ${started.episode_id} is closed: it was finished`);
  });

  it('an episode with no call for the idle timeout is closed and says so; one in use is kept', async () => {
    let now = 1_000_000;
    const book = new EpisodeBook(env, 'heldout', { idleSeconds: 60, now: () => now });
    const stale = (await book.start('s')).episode_id;
    const kept = (await book.start('s')).episode_id;
    now += 45_000;
    await book.call('t', 'calculate', { expression: '1' }, kept);
    now += 30_000; // stale idle 75 s, kept 30 s
    await expect(book.call('t', 'calculate', { expression: '1' }, stale)).rejects.toThrow(`episode ${stale} is closed: it had no call for 60 s (the idle timeout, --episode-idle-s)`);
    expect((await book.call('t', 'calculate', { expression: '2*3' }, kept)).text).toBe('6.0');
    expect(book.openCount).toBe(1);
    now += 61_000;
    expect(await book.sweepIdle()).toBe(1);
    expect(book.openCount).toBe(0);
    await book.closeAll();
    expect(() => new EpisodeBook(env, 'heldout', { idleSeconds: 0 })).toThrow(RangeError);
  });

  it('start_task without an id walks the served split per session, wrapping round', async () => {
    const book = new EpisodeBook(env, 'heldout', { maxEpisodes: 100 });
    const refs = env.tasks('heldout');
    const ids: string[] = [];
    for (let i = 0; i <= refs.length; i++) ids.push((await book.start('s')).task_id);
    expect(ids).toEqual([...refs.map((r) => r.id), refs[0].id]);
    expect((await book.start('t')).task_id).toBe(refs[0].id);
    await book.closeAll();
    expect(book.openCount).toBe(0);
    await expect(book.start('s')).rejects.toThrow(/shutting down/);
  });

  it('at the cap, one more episode closes the longest idle one, which says why when used', async () => {
    const book = new EpisodeBook(env, 'heldout', { maxEpisodes: 2 });
    const a = (await book.start('s')).episode_id;
    const b = (await book.start('s')).episode_id;
    await book.call('s', 'calculate', { expression: '2*3' }, a); // a is now the more recent
    await book.start('s');
    expect(book.openCount).toBe(2);
    await expect(book.call('s', 'calculate', { expression: '1' }, b)).rejects.toThrow(/closed: 2 episodes were open \(the cap, --max-episodes\) and it was the longest idle/);
    expect((await book.call('s', 'calculate', { expression: '2*3' }, a)).isError).toBe(false);
  });

  it('starts racing each other never open more than the cap', async () => {
    const book = new EpisodeBook(env, 'heldout', { maxEpisodes: 2 });
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => book.start('s')));
    expect(book.openCount).toBe(2);
    const refused = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
    for (const why of refused) expect(why).toMatch(/2 episodes are open or starting and none is idle/);
    await book.closeAll();
  });

  it('after the turn budget no call is taken and a late answer is not recorded, as in a rollout', async () => {
    const book = new EpisodeBook(env, 'heldout');
    const task = env.task(CANCEL);
    await book.start('s', { taskId: CANCEL });
    await replay(book, 's', task);
    for (let i = task.gold.calls.length; i < task.maxTurns; i++) await book.call('s', 'calculate', { expression: '1' });
    const late = await book.call('s', 'calculate', { expression: '1' });
    expect(late).toEqual({ isError: true, text: expect.stringMatching(/is over \(its turn budget of 7 is spent/) });
    const done = await book.finish('s', { answer: 'done' });
    expect(done.notes).toEqual(['the answer came after the episode was over and was not recorded (as in a rollout)']);
    expect(done.checklist.find((i) => i.kind === 'answer')).toMatchObject({ passed: false, detail: 'no final answer' });
    expect(done.turns).toBe(task.maxTurns);
  });
});

describe('servedTools', () => {
  it('adds an optional episode_id to every env tool and lists the episode tools first', () => {
    const tools = servedTools(env, 'train');
    expect(tools.slice(0, 3).map((t) => t.name)).toEqual(['start_task', 'finish', 'list_tasks']);
    const own = tools.slice(3);
    expect(own.map((t) => t.name)).toEqual(env.tools().map((t) => t.name));
    for (const [i, tool] of own.entries()) {
      expect(tool.inputSchema.properties).toHaveProperty(EPISODE_ID);
      expect(tool.inputSchema.required ?? []).not.toContain(EPISODE_ID);
      expect(tool.inputSchema.required).toEqual(env.tools()[i].parameters.required);
    }
    // The env's own schema is not touched.
    expect(env.tools().some((t) => EPISODE_ID in ((t.parameters.properties as object) ?? {}))).toBe(false);
  });

  it('refuses an env whose tool names or arguments clash with the served ones', () => {
    const fake = (name: string, properties: object): ToolEnv => ({ ...env, id: 'fake', tools: () => [{ name, description: '', parameters: { type: 'object', properties } }] }) as unknown as ToolEnv;
    expect(() => servedTools(fake('finish', {}), 'train')).toThrow(ServedToolsError);
    expect(() => servedTools(fake('look', { episode_id: { type: 'string' } }), 'train')).toThrow(/already has an "episode_id" argument/);
  });
});
