/**
 * Test helper: run a policy through a real episode and score it the way the engine does. Every
 * action goes through the text grammar (format, then parse against the task's tools), so a gold
 * call that a model could not express, or that breaks its tool schema, fails here too.
 */
import { scoreChecklist } from '../../../../../electron/engine/envs/checklist';
import { formatAction, parseAction } from '../../../../../electron/engine/envs/parser';
import type { Action, ChecklistResult, EnvCheck, EpisodeTranscript, ExpertPolicy, Task, ToolEnv } from '../../../../../electron/engine/envs/types';

export interface EpisodeRun {
  transcript: EpisodeTranscript;
  observations: string[];
  check: EnvCheck;
  checklist: ChecklistResult;
  envCalls: number;
}

export async function runEpisode(env: ToolEnv, task: Task, policy: ExpertPolicy, seed = 0): Promise<EpisodeRun> {
  const episode = await env.reset(task, seed);
  const transcript: EpisodeTranscript = { calls: [], answer: null, messages: [], formatErrors: 0 };
  const observations = [episode.initialObservation];
  try {
    for (let turn = 0; turn < task.maxTurns; turn++) {
      const action: Action = parseAction(formatAction(policy.next(observations[observations.length - 1])), task.tools ?? env.tools());
      if (action.kind === 'calls') transcript.calls.push(...action.calls);
      if (action.kind === 'answer') {
        transcript.answer = action.text;
        transcript.messages.push(action.text);
      }
      if (action.kind === 'invalid') transcript.formatErrors += 1;
      const result = await episode.step(action);
      observations.push(result.observation);
      if (result.done) break;
    }
    const check = await episode.finalCheck();
    return { transcript, observations, check, checklist: scoreChecklist(task.checklist, transcript), envCalls: episode.cost().envCalls };
  } finally {
    await episode.close();
  }
}

/** A policy that answers at once without calling anything. */
export const silentPolicy: ExpertPolicy = { next: () => ({ kind: 'answer', text: '' }) };

/** A policy that plays a fixed list of actions, then answers nothing. */
export function scriptedPolicy(actions: Action[]): ExpertPolicy {
  let i = 0;
  return { next: () => actions[i++] ?? { kind: 'answer', text: '' } };
}
