/**
 * Expert demonstrations for SFT and the tokenizer corpus: each env's scripted expert driven through
 * the real environment (actions in the shared text grammar), then laid out as token segments in the
 * same layout the policy generates in.
 */
import { formatAction, parseAction } from '../envs/parser';
import type { Task, ToolEnv } from '../envs/types';
import { AlgorithmError } from './errors';
import { type PolicyTokenizer, type Segment, type SpecialIds, type ToolSchemaMode, givenSegment, promptSegments, systemText } from './layout';

export interface DemoTranscript {
  task: Task;
  system: string;
  initialObservation: string;
  steps: Array<{ actionText: string; observation: string | null }>;
}

export interface Demonstration {
  task: Task;
  segments: Segment[];
}

/** Run the expert on each task in the real env and record what it wrote and saw. */
export async function expertTranscripts(env: ToolEnv, tasks: readonly Task[], toolSchemas: ToolSchemaMode, seed: number): Promise<DemoTranscript[]> {
  if (!env.expert) throw new AlgorithmError(`environment '${env.id}' has no scripted expert to learn from`);
  const out: DemoTranscript[] = [];
  for (const task of tasks) {
    const tools = task.tools ?? env.tools();
    const expert = env.expert(task);
    const episode = await env.reset(task, seed);
    try {
      const steps: DemoTranscript['steps'] = [];
      let observation = episode.initialObservation;
      for (let turn = 0; turn < task.maxTurns; turn++) {
        const actionText = formatAction(expert.next(observation));
        const action = parseAction(actionText, tools);
        if (action.kind === 'answer') {
          steps.push({ actionText, observation: null });
          break;
        }
        const r = await episode.step(action);
        observation = r.observation;
        steps.push({ actionText, observation });
        if (r.done) break;
      }
      out.push({ task, system: systemText(env.description, tools, toolSchemas), initialObservation: episode.initialObservation, steps });
    } finally {
      await episode.close();
    }
  }
  return out;
}

/** Every text a tokenizer for this env should know: prompts, actions, observations. */
export function demoCorpus(transcripts: readonly DemoTranscript[]): string[] {
  return transcripts.flatMap((t) => [t.system, t.task.instruction, t.initialObservation, ...t.steps.flatMap((s) => [s.actionText, s.observation ?? ''])]).filter((x) => x.length > 0);
}

/** Lay a transcript out as segments, dropping trailing turns that do not fit in `maxSeqLen`. */
export function demoSegments(tok: PolicyTokenizer, sp: SpecialIds, t: DemoTranscript, maxObservationTokens: number, maxSeqLen: number): Demonstration | null {
  const segments = promptSegments(tok, sp, { system: t.system, instruction: t.task.instruction, initialObservation: t.initialObservation }, maxObservationTokens);
  let used = segments.reduce((n, s) => n + s.ids.length, 0);
  for (const step of t.steps) {
    const turn = [givenSegment(tok, sp, 'act', sp.act, step.actionText)];
    if (step.observation !== null) turn.push(givenSegment(tok, sp, 'env', sp.obs, step.observation, maxObservationTokens));
    const n = turn.reduce((k, s) => k + s.ids.length, 0);
    if (used + n > maxSeqLen) break;
    segments.push(...turn);
    used += n;
  }
  return segments.some((s) => s.role === 'act') ? { task: t.task, segments } : null;
}
