/**
 * The episodes an `envace mcp serve` process holds open for its MCP clients. Each is its own
 * `env.reset(task, seed)` (the env's reset is the episode, so two never share a write), driven
 * and scored exactly as a rollout drives and scores one (algorithms/rollout.ts): every call goes
 * through the one grammar (formatAction → parseAction with the task's tools) and is one act, the
 * answer is stepped into the episode too, and the transcript a TranscriptRecorder kept is scored
 * by scoreChecklist; the end-state check is the env's own finalCheck.
 *
 * An episode id is the key: any client session may address it, so an episode outlives the session
 * that started it (verl's MCP client opens a session per call; the MCP Inspector CLI one per
 * invocation) and lasts until `finish`, or until it has been idle for the idle timeout. Ids are
 * random 128-bit, since holding one is all it takes to act in an episode. A call without an id
 * goes to the only open episode its own session started (so a plain MCP client, our own adapter
 * included, needs no id bookkeeping for one task at a time). The number open is capped: starting
 * one more closes the longest idle episode, or is refused when every open one is busy.
 */
import { episodeSucceeded } from '../envs/success';
import { randomBytes } from 'node:crypto';
import { scoreChecklist } from '../envs/checklist';
import { TranscriptRecorder } from '../envs/episode-base';
import { formatAction, parseAction } from '../envs/parser';
import type { Action, ChecklistItemResult, EnvCheck, Episode, JsonValue, Split, Task, TaskRef, ToolEnv, ToolSpec } from '../envs/types';

export const DEFAULT_MAX_EPISODES = 16;
/** Seconds an episode may go without a call before it is closed (`--episode-idle-s`). */
export const DEFAULT_EPISODE_IDLE_S = 600;
/** The longest wait between sweeps for idle episodes: an idle one closes at most this late. */
const SWEEP_EVERY_MS = 30_000;
/** How many closed ids are remembered, so that a late call names why its episode is gone. */
const REMEMBERED_CLOSED = 1_000;

/** A mistake of the client's (unknown episode, bad argument): an isError result, never a crash. */
export class EpisodeRequestError extends Error {
  override name = 'EpisodeRequestError';
}

export interface StartResult {
  episode_id: string;
  task_id: string;
  split: Split;
  instruction: string;
  initial_observation: string;
  max_turns: number;
  /** Only for tasks that bring their own tools (BFCL): the tools its calls are checked against. */
  tools?: string[];
}

export interface FinishResult {
  episode_id: string;
  task_id: string;
  /** The checklist score, as a rollout's reward. */
  reward: number;
  format_error: boolean;
  checklist: ChecklistItemResult[];
  end_state: EnvCheck;
  /** As a rollout and the oracle count success (envs/success.ts). */
  success: boolean;
  turns: number;
  notes: string[];
}

export interface CallResult {
  text: string;
  isError: boolean;
}

interface OpenEpisode {
  id: string;
  /** The session that started it, which may address it without an id; null once that session ended. */
  session: string | null;
  task: Task;
  tools: ToolSpec[];
  episode: Episode;
  recorder: TranscriptRecorder;
  acts: number;
  /** The turn budget is spent or the env ended the episode: a rollout would act no more. */
  over: boolean;
  lastUsed: number;
  /** When its last call ended (ms, the book's clock), for the idle timeout. */
  idleSince: number;
  busy: number;
  /** Calls to one episode run one at a time, so its transcript is the order the env saw. */
  queue: Promise<unknown>;
}

export class EpisodeBook {
  readonly maxEpisodes: number;
  private readonly open = new Map<string, OpenEpisode>();
  private readonly closedWhy = new Map<string, string>();
  private readonly cursors = new Map<string, number>();
  private starting = 0;
  private clock = 0;
  private shut = false;
  readonly idleMs: number;
  private readonly now: () => number;
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(
    readonly env: ToolEnv,
    readonly split: Split,
    opts: { maxEpisodes?: number; idleSeconds?: number; now?: () => number } = {},
  ) {
    this.maxEpisodes = opts.maxEpisodes ?? DEFAULT_MAX_EPISODES;
    if (!Number.isInteger(this.maxEpisodes) || this.maxEpisodes < 1) throw new RangeError(`the episode cap must be a whole number >= 1, got ${opts.maxEpisodes}`);
    const idle = opts.idleSeconds ?? DEFAULT_EPISODE_IDLE_S;
    if (!(idle > 0)) throw new RangeError(`the episode idle timeout must be > 0 seconds, got ${opts.idleSeconds}`);
    this.idleMs = idle * 1000;
    this.now = opts.now ?? Date.now;
    // Requests sweep too; the timer frees an abandoned episode's env when no request comes. unref: it never keeps the process up.
    this.sweeper = setInterval(() => void this.sweepIdle(), Math.min(this.idleMs, SWEEP_EVERY_MS));
    this.sweeper.unref();
  }

  get openCount(): number {
    return this.open.size;
  }

  /** The tools the session's open episodes' tasks bring of their own (none for most envs). */
  taskTools(session: string): ToolSpec[] {
    // The session's own episodes only: a session lists what it may call without an id.
    return [...this.open.values()].filter((ep) => ep.session === session && ep.task.tools).flatMap((ep) => ep.task.tools!);
  }

  listTasks(split: Split = this.split): TaskRef[] {
    return this.env.tasks(split);
  }

  /** A new episode of `taskId`, or of the session's next task of the served split (wrapping round). */
  async start(session: string, opts: { taskId?: string; seed?: number } = {}): Promise<StartResult> {
    if (this.shut) throw new EpisodeRequestError('the server is shutting down');
    await this.sweepIdle();
    const task = this.pickTask(session, opts.taskId);
    const seed = opts.seed ?? 0;
    if (!Number.isInteger(seed)) throw new EpisodeRequestError(`seed must be an integer, got ${seed}`);
    // Counted before any await, so that starts racing each other cannot all pass the cap.
    this.starting++;
    let episode: Episode;
    try {
      await this.makeRoom();
      episode = await this.env.reset(task, seed);
    } finally {
      this.starting--;
    }
    if (this.shut) {
      // Shutdown came while the env was resetting: this episode must not outlive it.
      await episode.close().catch(() => undefined);
      throw new EpisodeRequestError('the server is shutting down');
    }
    const id = `ep-${randomBytes(16).toString('hex')}`;
    this.open.set(id, {
      id,
      session,
      task,
      tools: task.tools ?? this.env.tools(),
      episode,
      recorder: new TranscriptRecorder(),
      acts: 0,
      over: false,
      lastUsed: ++this.clock,
      idleSince: this.now(),
      busy: 0,
      queue: Promise.resolve(),
    });
    return {
      episode_id: id,
      task_id: task.id,
      split: task.split,
      instruction: task.instruction,
      initial_observation: episode.initialObservation,
      max_turns: task.maxTurns,
      ...(task.tools ? { tools: task.tools.map((t) => t.name) } : {}),
    };
  }

  /** One env tool call, as one act of the episode; the observation is what our agent would see. */
  async call(session: string, tool: string, rawArgs: { [key: string]: JsonValue }, episodeId?: string): Promise<CallResult> {
    const ep = await this.resolve(session, episodeId);
    return this.serial(ep, async () => {
      if (ep.over) {
        return { text: `Error: episode ${ep.id} is over (its turn budget of ${ep.task.maxTurns} is spent, or the environment ended it); call finish`, isError: true };
      }
      const action = parseAction(formatAction({ kind: 'calls', calls: [{ name: tool, arguments: rawArgs }] }), ep.tools);
      const rejectedBefore = ep.episode.rejectedCalls?.().length ?? 0;
      const { observation } = await this.act(ep, action);
      const rejected = (ep.episode.rejectedCalls?.().length ?? 0) > rejectedBefore;
      return { text: observation, isError: action.kind === 'invalid' || rejected || /^\s*Error\b/.test(observation) };
    });
  }

  /** Score the episode as a rollout would (after stepping the answer in, if any) and close it. */
  async finish(session: string, opts: { episodeId?: string; answer?: string } = {}): Promise<FinishResult> {
    const ep = await this.resolve(session, opts.episodeId);
    return this.serial(ep, async () => {
      const notes: string[] = [];
      if (opts.answer !== undefined) {
        // A rollout that ran out of turns never gets to answer; neither does this episode.
        if (ep.over) notes.push('the answer came after the episode was over and was not recorded (as in a rollout)');
        else await this.act(ep, parseAction(formatAction({ kind: 'answer', text: opts.answer })));
      }
      try {
        const checklist = scoreChecklist(ep.task.checklist, ep.recorder.snapshot());
        const envCheck = await ep.episode.finalCheck();
        return {
          episode_id: ep.id,
          task_id: ep.task.id,
          reward: checklist.score,
          format_error: checklist.formatError,
          checklist: checklist.items,
          end_state: envCheck,
          success: episodeSucceeded(ep.episode, envCheck, checklist),
          turns: ep.acts,
          notes,
        };
      } finally {
        await this.closeOne(ep, 'it was finished');
      }
    });
  }

  /**
   * A session ended: its episodes stay open (another session, or the same client reconnected, may go
   * on with them by id until finish or the idle timeout); only the session's claim on them ends.
   */
  endSession(session: string): void {
    this.cursors.delete(session);
    for (const ep of this.open.values()) if (ep.session === session) ep.session = null;
  }

  /** Close every episode idle for longer than the idle timeout; returns how many were closed. */
  async sweepIdle(): Promise<number> {
    const cutoff = this.now() - this.idleMs;
    const stale = [...this.open.values()].filter((ep) => ep.busy === 0 && ep.idleSince <= cutoff);
    const why = `it had no call for ${this.idleMs / 1000} s (the idle timeout, --episode-idle-s)`;
    await Promise.all(stale.map((ep) => this.closeOne(ep, why)));
    return stale.length;
  }

  /** Close everything (server shutdown); later starts are refused. */
  async closeAll(): Promise<void> {
    this.shut = true;
    clearInterval(this.sweeper);
    await Promise.all([...this.open.values()].map((ep) => this.closeOne(ep, 'the server shut down')));
  }

  private pickTask(session: string, taskId: string | undefined): Task {
    if (taskId !== undefined) {
      try {
        return this.env.task(taskId);
      } catch (error) {
        throw new EpisodeRequestError(`${this.env.id} has no task "${taskId}" (${(error as Error).message}); list_tasks names them`);
      }
    }
    const refs = this.env.tasks(this.split);
    if (refs.length === 0) throw new EpisodeRequestError(`${this.env.id} has no ${this.split} tasks; pass task_id`);
    const next = this.cursors.get(session) ?? 0;
    this.cursors.set(session, (next + 1) % refs.length);
    return this.env.task(refs[next % refs.length].id);
  }

  /** Room for the starts under way, the longest idle episodes closed to make it; refused when all are busy. */
  private async makeRoom(): Promise<void> {
    while (this.open.size + this.starting > this.maxEpisodes) {
      const idle = [...this.open.values()].filter((ep) => ep.busy === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (!idle) throw new EpisodeRequestError(`${this.maxEpisodes} episodes are open or starting and none is idle (the cap, --max-episodes); finish one and start again`);
      await this.closeOne(idle, `${this.maxEpisodes} episodes were open (the cap, --max-episodes) and it was the longest idle`);
    }
  }

  private async resolve(session: string, episodeId: string | undefined): Promise<OpenEpisode> {
    await this.sweepIdle();
    if (episodeId !== undefined) {
      const ep = this.open.get(episodeId);
      if (ep) return ep;
      const why = this.closedWhy.get(episodeId);
      if (why) throw new EpisodeRequestError(`episode ${episodeId} is closed: ${why}; start_task opens a new one`);
      throw new EpisodeRequestError(`no open episode "${episodeId}" on this server (an id from start_task is needed; this server may have been restarted); start_task opens one`);
    }
    const mine = [...this.open.values()].filter((ep) => ep.session === session);
    if (mine.length === 1) return mine[0];
    if (mine.length === 0) throw new EpisodeRequestError('no open episode in this session: call start_task first');
    throw new EpisodeRequestError(`${mine.length} episodes are open in this session (${mine.map((ep) => ep.id).join(', ')}); pass episode_id`);
  }

  /** Record and step one action, as rollout.ts does: calls are recorded once the grammar accepted them. */
  private async act(ep: OpenEpisode, action: Action): Promise<{ observation: string }> {
    ep.recorder.recordAction(action);
    if (action.kind === 'calls') action.calls.forEach((c) => ep.recorder.recordCall(c));
    const { observation, done } = await ep.episode.step(action);
    ep.acts++;
    ep.over = done || ep.acts >= ep.task.maxTurns;
    return { observation };
  }

  private async serial<T>(ep: OpenEpisode, body: () => Promise<T>): Promise<T> {
    ep.busy++;
    ep.lastUsed = ++this.clock;
    const run = ep.queue.then(() => {
      if (!this.open.has(ep.id)) throw new EpisodeRequestError(`episode ${ep.id} is closed: ${this.closedWhy.get(ep.id) ?? 'it was closed'}`);
      return body();
    });
    ep.queue = run.catch(() => undefined);
    try {
      return await run;
    } finally {
      ep.busy--;
      ep.lastUsed = ++this.clock;
      ep.idleSince = this.now();
    }
  }

  private async closeOne(ep: OpenEpisode, why: string): Promise<void> {
    if (!this.open.delete(ep.id)) return;
    this.closedWhy.set(ep.id, why);
    if (this.closedWhy.size > REMEMBERED_CLOSED) this.closedWhy.delete(this.closedWhy.keys().next().value as string);
    await ep.episode.close().catch(() => undefined);
  }
}
