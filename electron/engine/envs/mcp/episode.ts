/**
 * An episode whose tools live on an MCP server. Calls go to the server one by one; a server that
 * dies or times out turns into an error observation and a failure recorded on the episode.
 */
import type { Action, EnvCheck, Episode, EpisodeCost, JsonValue, StepResult, Task } from '../types';
import type { McpCallLimits, McpConnection } from './connection';

type Args = { [key: string]: JsonValue };

export interface McpEpisodeOptions {
  task: Task;
  connection: McpConnection;
  limits: McpCallLimits;
  initialObservation: string;
  /** Rewrite arguments on the way to the server and text on the way back (e.g. a sandbox path alias). */
  translate?: { args(args: Args): Args; text(text: string): string };
  /** End-state checks of the environment (given the final answer), run next to the server-health check. */
  endChecks?: (answer: string | null) => Promise<EnvCheck['checks']>;
  /** Runs once when the episode closes (stop a per-episode server, remove a sandbox). */
  onClose?: () => Promise<void>;
}

export class McpEpisode implements Episode {
  readonly task: Task;
  readonly initialObservation: string;
  /** Server failures seen during the episode (crash, timeout), in order. */
  readonly failures: string[] = [];
  /** Calls the server answered with an error result (isError), as "tool: text". */
  private readonly rejected: string[] = [];
  private answer: string | null = null;
  private turns = 0;
  private finished = false;
  private closed = false;
  private envCalls = 0;
  private envWallMs = 0;

  constructor(private readonly opts: McpEpisodeOptions) {
    this.task = opts.task;
    this.initialObservation = opts.initialObservation;
  }

  private async callOne(name: string, args: Args): Promise<string> {
    const translated = this.opts.translate ? this.opts.translate.args(args) : args;
    const started = performance.now();
    const outcome = await this.opts.connection.call(name, translated, this.opts.limits);
    this.envWallMs += performance.now() - started;
    this.envCalls += 1;
    if (outcome.failure && !this.failures.includes(outcome.failure)) this.failures.push(outcome.failure);
    if (outcome.isError) this.rejected.push(`${name}: ${outcome.text.slice(0, 200)}`);
    return this.opts.translate ? this.opts.translate.text(outcome.text) : outcome.text;
  }

  async step(action: Action): Promise<StepResult> {
    if (this.finished) return { observation: 'The episode is over; no further actions are accepted.', done: true };
    this.turns += 1;
    if (action.kind === 'answer') {
      this.answer = action.text;
      this.finished = true;
      return { observation: 'Answer recorded. The episode is over.', done: true };
    }
    let observation: string;
    if (action.kind === 'invalid') {
      observation = action.error;
    } else {
      const parts: string[] = [];
      for (const call of action.calls) parts.push(await this.callOne(call.name, call.arguments ?? {}));
      observation = parts.join('\n');
    }
    if (this.turns >= this.task.maxTurns) {
      this.finished = true;
      observation += `\nThe turn budget (${this.task.maxTurns}) is spent; the episode is over.`;
    }
    return { observation, done: this.finished };
  }

  async finalCheck(): Promise<EnvCheck> {
    const checks = this.opts.endChecks ? await this.opts.endChecks(this.answer) : [];
    checks.push({
      name: 'tool server stayed up',
      passed: this.failures.length === 0,
      ...(this.failures.length ? { detail: this.failures.join('; ') } : {}),
    });
    return { passed: checks.every((c) => c.passed || c.skipped), checks };
  }

  /** The process id of this episode's server (stdio), for tests and diagnostics. */
  get serverPid(): number | null {
    return this.opts.connection.pid;
  }

  rejectedCalls(): string[] {
    return [...this.rejected];
  }

  cost(): EpisodeCost {
    return { envCalls: this.envCalls, envWallMs: this.envWallMs };
  }

  async close(): Promise<void> {
    this.finished = true;
    if (this.closed) return;
    this.closed = true;
    await this.opts.onClose?.();
  }
}
