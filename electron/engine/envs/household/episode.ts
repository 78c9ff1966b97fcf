/** One household episode: a private copy of the task's world, stepped by tool calls. */
import { normaliseText } from '../checklist';
import type { Action, EnvCheck, Episode, EpisodeCost, StepResult, Task } from '../types';
import { applyCall, describeHouse } from './engine';
import { findItem, type World } from './world';

export const EPISODE_OVER = 'The episode is over; no further actions are accepted.';

interface GoalMeta {
  object: string;
  target: string;
  transform: 'clean' | 'heat' | 'cool' | null;
}

export class HouseholdEpisode implements Episode {
  readonly initialObservation: string;
  private turns = 0;
  private finished = false;
  private answer: string | null = null;
  private envCalls = 0;
  private envWallMs = 0;

  constructor(
    readonly task: Task,
    private readonly world: World,
  ) {
    this.initialObservation = describeHouse(world);
  }

  async step(action: Action): Promise<StepResult> {
    if (this.finished) return { observation: EPISODE_OVER, done: true };
    this.turns += 1;
    let observation: string;
    if (action.kind === 'answer') {
      this.answer = action.text;
      this.finished = true;
      return { observation: 'Answer recorded. The episode is over.', done: true };
    }
    if (action.kind === 'invalid') {
      observation = action.error;
    } else {
      const started = performance.now();
      observation = action.calls.map((call) => applyCall(this.world, call)).join('\n');
      this.envCalls += action.calls.length;
      this.envWallMs += performance.now() - started;
    }
    if (this.turns >= this.task.maxTurns) {
      this.finished = true;
      observation += `\nThe turn budget (${this.task.maxTurns}) is spent; the episode is over.`;
    }
    return { observation, done: this.finished };
  }

  async finalCheck(): Promise<EnvCheck> {
    const checks: EnvCheck['checks'] = [];
    const goals = (this.task.meta?.goals ?? []) as unknown as GoalMeta[];
    for (const goal of goals) {
      const item = findItem(this.world, goal.object);
      const detail = item?.location ? `it is at ${item.location}` : item ? 'the agent is holding it' : 'no such object';
      checks.push({ name: `${goal.object} is at ${goal.target}`, passed: item?.location === goal.target, detail });
      if (goal.transform && item) {
        const state = goal.transform === 'clean' ? item.clean : goal.transform === 'heat' ? item.hot : item.cold;
        const word = goal.transform === 'clean' ? 'clean' : goal.transform === 'heat' ? 'hot' : 'cold';
        checks.push({ name: `${goal.object} is ${word}`, passed: state });
      }
    }
    const expected = this.task.meta?.answer;
    if (typeof expected === 'string') {
      const passed = this.answer !== null && normaliseText(this.answer) === normaliseText(expected);
      checks.push({ name: `answer is ${expected}`, passed, detail: this.answer === null ? 'no answer' : `answered ${JSON.stringify(this.answer)}` });
    }
    return { passed: checks.length > 0 && checks.every((c) => c.passed), checks };
  }

  cost(): EpisodeCost {
    return { envCalls: this.envCalls, envWallMs: this.envWallMs };
  }

  async close(): Promise<void> {
    this.finished = true;
  }
}
