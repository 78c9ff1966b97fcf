/**
 * What every tool episode shares: a transcript of what the agent did (the checklist's input), a
 * turn budget, cost accounting, and the rule that model output never throws — a step after the
 * end, an invalid action or a tool failure all come back as observations.
 */
import { performance } from 'node:perf_hooks';
import type { Action, EnvCheck, Episode, EpisodeCost, EpisodeTranscript, StepResult, Task, ToolCall } from './types';

/** Longest observation handed back to the agent; longer tool output is cut with a marker. */
export const MAX_OBSERVATION_CHARS = 16_000;

export function capObservation(text: string): string {
  return text.length > MAX_OBSERVATION_CHARS
    ? `${text.slice(0, MAX_OBSERVATION_CHARS)}...[truncated ${text.length - MAX_OBSERVATION_CHARS} characters]`
    : text;
}

/** Accumulates an episode's transcript from the actions taken. */
export class TranscriptRecorder {
  private readonly calls: ToolCall[] = [];
  private readonly callActs: number[] = [];
  private acts = 0;
  private answer: string | null = null;
  private readonly messages: string[] = [];
  private formatErrors = 0;

  /** Record an action; calls are recorded only once the env has accepted them (`recordCall`). */
  recordAction(action: Action): void {
    this.acts++;
    if (action.kind === 'invalid') this.formatErrors++;
    if (action.kind === 'answer') {
      this.answer = action.text;
      this.messages.push(action.text);
    }
  }

  /** A call of the action recorded last (calls of one act share its number). */
  recordCall(call: ToolCall): void {
    this.calls.push(call);
    this.callActs.push(this.acts);
  }

  recordFormatError(): void {
    this.formatErrors++;
  }

  snapshot(): EpisodeTranscript {
    return { calls: [...this.calls], callActs: [...this.callActs], answer: this.answer, messages: [...this.messages], formatErrors: this.formatErrors };
  }
}

export interface ToolEpisodeHooks {
  /** Run one call; `wellFormed: false` marks unknown tools / schema violations as format errors. */
  execute(call: ToolCall): { observation: string; wellFormed: boolean };
  /** End-state checks, given what the agent did. */
  check(transcript: EpisodeTranscript): EnvCheck;
}

/** A turn-based episode over synchronous tools (the tau2-style DB domains). */
export class ToolEpisode implements Episode {
  private readonly recorder = new TranscriptRecorder();
  private turns = 0;
  private done = false;
  private envCalls = 0;
  private envWallMs = 0;

  constructor(
    readonly task: Task,
    readonly initialObservation: string,
    private readonly hooks: ToolEpisodeHooks,
  ) {}

  async step(action: Action): Promise<StepResult> {
    if (this.done) return { observation: 'Error: the episode has ended', done: true };
    this.turns++;
    this.recorder.recordAction(action);
    let observation: string;
    switch (action.kind) {
      case 'invalid':
        observation = action.error;
        break;
      case 'answer':
        this.done = true;
        observation = '';
        break;
      case 'calls': {
        const outs: string[] = [];
        for (const call of action.calls) {
          const t0 = performance.now();
          const out = this.hooks.execute(call);
          this.envWallMs += performance.now() - t0;
          this.envCalls++;
          if (out.wellFormed) this.recorder.recordCall(call);
          else this.recorder.recordFormatError();
          outs.push(capObservation(out.observation));
        }
        observation = outs.join('\n');
        break;
      }
    }
    if (this.turns >= this.task.maxTurns) this.done = true;
    return { observation, done: this.done };
  }

  transcript(): EpisodeTranscript {
    return this.recorder.snapshot();
  }

  async finalCheck(): Promise<EnvCheck> {
    return this.hooks.check(this.recorder.snapshot());
  }

  cost(): EpisodeCost {
    return { envCalls: this.envCalls, envWallMs: this.envWallMs };
  }

  async close(): Promise<void> {
    this.done = true;
  }
}
