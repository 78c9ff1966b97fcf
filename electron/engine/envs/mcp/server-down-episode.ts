/**
 * The episode of a task whose server could not be had (it died or hung at start-up, or its reset
 * tool failed): over before it began, failing one check that says why. The episode fails, and is
 * counted and named by eval, training and `envs test`; the command itself goes on.
 */
import type { Action, EnvCheck, Episode, EpisodeCost, StepResult, Task } from '../types';

export const SERVER_DOWN_CHECK = 'the tool server started';

export class ServerDownEpisode implements Episode {
  readonly initialObservation: string;
  /** As McpEpisode's: the server failure of the episode, here the only one. */
  readonly failures: string[];
  /** No server ran. */
  readonly serverPid: number | null = null;

  constructor(
    readonly task: Task,
    private readonly reason: string,
  ) {
    this.initialObservation = `The tool server did not start (${reason}); the episode is over.`;
    this.failures = [reason];
  }

  /** The calls the agent tried: none reached a server, so none earns checklist credit (the oracle's score, a rollout's reward). */
  private readonly attempted: string[] = [];

  async step(action: Action): Promise<StepResult> {
    if (action.kind === 'calls') for (const c of action.calls) this.attempted.push(`${c.name}: the tool server did not start`);
    return { observation: 'The tool server did not start; the episode is over.', done: true };
  }

  async finalCheck(): Promise<EnvCheck> {
    return { passed: false, checks: [{ name: SERVER_DOWN_CHECK, passed: false, detail: `the tool server did not start: ${this.reason}` }] };
  }

  cost(): EpisodeCost {
    return { envCalls: 0, envWallMs: 0 };
  }

  rejectedCalls(): string[] {
    return [...this.attempted];
  }

  async close(): Promise<void> {}
}

/** The episode's server from `acquire`, or the ServerDownEpisode that says why there is none. */
export async function serverOrDown<S>(task: Task, acquire: () => Promise<S>): Promise<{ server: S } | { down: ServerDownEpisode }> {
  try {
    return { server: await acquire() };
  } catch (error) {
    return { down: new ServerDownEpisode(task, error instanceof Error ? error.message : String(error)) };
  }
}
