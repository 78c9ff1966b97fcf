/**
 * The `simulator` rehearse prompt (algorithms.md "Rollout modes", as EnvACE's released code does):
 * instead of continuing the actor's stream after `<|obs|>`, the policy answers a separate prompt — a
 * simulator instruction with the candidate tools, few-shot real call/result pairs from the task's
 * reference trajectory, the episode so far and the call to answer — after `<|rehearse|>`. Its answer is
 * trained as its own row under the Rehearse advantage and placed in the actor's history.
 */
import { formatAction } from '../envs/parser';
import type { Action, ToolSpec } from '../envs/types';
import { type PolicyTokenizer, type Segment, type SpecialIds, givenSegment, systemText } from './layout';

/** A real call and what the world answered, from the task's reference trajectory. */
export interface ReferenceStep {
  action: string;
  observation: string;
}

export interface SimulatorInput {
  envDescription: string;
  tools: readonly ToolSpec[];
  reference: readonly ReferenceStep[];
  history: ReadonlyArray<{ action: Action; observation: string | null }>;
  call: Action;
}

const INSTRUCTION = 'You simulate the tools of this environment. Answer the last call with exactly what the tool would return.';

/** The simulator's user text; the call to answer comes last so a cut keeps it. */
export function simulatorText(input: SimulatorInput): string {
  const pair = (a: string, o: string) => `CALL: ${a}\nRESULT: ${o}`;
  const parts = [
    ...(input.reference.length ? ['Examples:', ...input.reference.map((r) => pair(r.action, r.observation))] : []),
    ...(input.history.length ? ['Episode so far:', ...input.history.map((h) => pair(formatAction(h.action), h.observation ?? ''))] : []),
    'Call to answer:',
    `CALL: ${formatAction(input.call)}`,
  ];
  return parts.join('\n');
}

/** Prompt segments of the simulator row, ready for `<|rehearse|>`; at most `maxTokens` ids. */
export function simulatorPrompt(tok: PolicyTokenizer, sp: SpecialIds, input: SimulatorInput, maxTokens: number): Segment[] {
  // The tool list may be long for a small context: it gets at most a third of the room.
  const system = givenSegment(
    tok,
    sp,
    'prompt',
    sp.system,
    `${INSTRUCTION}\n${systemText(input.envDescription, input.tools, 'compact')}`,
    Math.floor(maxTokens / 3),
  );
  const room = Math.max(1, maxTokens - system.ids.length - 2);
  return [system, givenSegment(tok, sp, 'prompt', sp.user, simulatorText(input), room, 'tail')];
}
