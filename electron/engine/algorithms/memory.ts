/**
 * The rehearsal memory (algorithms.md "Test-time private rehearsal"): each private rehearsal
 * summarised as its plan, predicted observations, answer, confidence and self-detected problems,
 * plus a consensus plan/answer by majority. Shape = the contract's `RehearsalMemory`.
 */
import { type RehearsalMemory as Memory, RehearsalMemory } from '../../contract';
import { normaliseText } from '../envs/checklist';
import { isErrorObservation } from '../envs/error-observation';
import type { Action, JsonValue, ToolCall } from '../envs/types';

export type { Memory };
type Summary = Memory['rehearsals'][number];

/** What one rehearsal did, turn by turn (the rollout module produces it). */
export interface RehearsalTrace {
  instruction: string;
  turns: Array<{ action: Action; observation: string | null }>;
  /** Log-probs of every token the policy generated in the rehearsal (actions and observations). */
  logprobs: readonly number[];
}

const LIMIT = 64;

export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

function scalarStrings(value: JsonValue, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number') out.push(String(value));
  else if (Array.isArray(value)) value.forEach((v) => scalarStrings(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => scalarStrings(v, out));
  return out;
}

/**
 * Problems a rehearsal can see in itself: format errors, predicted errors, and arguments whose values
 * appear neither in the instruction nor in any earlier predicted observation (the plan contradicts
 * what it imagined the world said).
 */
function findProblems(trace: RehearsalTrace): string[] {
  const problems: string[] = [];
  const seen = [trace.instruction.toLowerCase()];
  trace.turns.forEach((turn, i) => {
    const a = turn.action;
    if (a.kind === 'invalid') problems.push(`turn ${i + 1}: format error: ${a.error}`);
    if (a.kind === 'calls')
      for (const call of a.calls)
        for (const v of Object.values(call.arguments).flatMap((x) => scalarStrings(x)))
          if (v.trim() && !seen.some((s) => s.includes(v.toLowerCase())))
            problems.push(`turn ${i + 1}: ${call.name} uses ${JSON.stringify(v)}, which no earlier observation mentioned`);
    if (turn.observation !== null) {
      if (isErrorObservation(turn.observation)) problems.push(`turn ${i + 1}: predicted an error: ${turn.observation.slice(0, 200)}`);
      seen.push(turn.observation.toLowerCase());
    }
  });
  if (!trace.turns.some((t) => t.action.kind === 'answer')) problems.push('no final answer');
  return problems.slice(0, LIMIT);
}

export function summariseRehearsal(trace: RehearsalTrace): Summary {
  const plan: ToolCall[] = [];
  const predicted: string[] = [];
  let answer: string | null = null;
  for (const turn of trace.turns) {
    if (turn.action.kind === 'calls')
      for (const call of turn.action.calls) {
        plan.push(call);
        predicted.push(turn.observation ?? '');
      }
    if (turn.action.kind === 'answer') answer = turn.action.text;
  }
  const n = trace.logprobs.length;
  const mean = n ? trace.logprobs.reduce((s, v) => s + v, 0) / n : 0;
  return {
    plan: plan.slice(0, LIMIT),
    predictedObservations: predicted.slice(0, LIMIT).map((o) => o.slice(0, 16_384)),
    answer: answer === null ? null : answer.slice(0, 16_384),
    confidence: Math.min(0, mean),
    problems: findProblems(trace),
  };
}

/** The most frequent key; ties go to the candidate with the higher confidence, then the earlier one. */
export function majority<T>(items: Array<{ key: string; value: T; confidence: number }>): T | undefined {
  const groups = new Map<string, { count: number; best: number; first: number; value: T }>();
  items.forEach((it, i) => {
    const g = groups.get(it.key);
    if (g) {
      g.count++;
      g.best = Math.max(g.best, it.confidence);
    } else groups.set(it.key, { count: 1, best: it.confidence, first: i, value: it.value });
  });
  return [...groups.values()].sort((a, b) => b.count - a.count || b.best - a.best || a.first - b.first)[0]?.value;
}

/** Summaries of N rehearsals → the structured memory with its consensus. */
export function buildMemory(traces: readonly RehearsalTrace[], notes = ''): Memory {
  const rehearsals = traces.slice(0, LIMIT).map(summariseRehearsal);
  // Rehearsals with format errors do not vote on the plan: their plan is not one the world accepts.
  const voters = rehearsals.filter((r) => !r.problems.some((p) => p.includes('format error')));
  const pool = voters.length ? voters : rehearsals;
  const plan = majority(pool.map((r) => ({ key: canonical(r.plan), value: r.plan, confidence: r.confidence }))) ?? [];
  const answered = pool.filter((r) => r.answer !== null);
  const answer = majority(answered.map((r) => ({ key: normaliseText(r.answer!), value: r.answer!, confidence: r.confidence }))) ?? null;
  return RehearsalMemory.parse({ rehearsals, consensus: { plan, answer }, notes });
}
