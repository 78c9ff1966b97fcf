/**
 * Commit mode `safe` (issue 21 item 4): test-time rehearsal that cannot hurt a policy which is not
 * robust to prompt changes. The memory never enters the prompt — a policy that copies ids from
 * fixed prompt positions breaks on any extra block (the retail recipe went from ~60 % to 0 % with
 * one) — so the committed run is the plain policy's own run, call for call, except where the
 * rehearsals give evidence against a call: every rehearsal that imagined that exact call imagined
 * the world refusing it, and some rehearsal's call at the same step was imagined to succeed. Only
 * then is the policy's call replaced, by the commonest such call (ties: the more confident
 * rehearsal, then the earlier). With no such evidence the real run is the one rehearsal-free eval
 * makes, so the memory can only change calls it predicts will fail.
 */
import type { Action, ToolCall } from '../envs/types';
import { isErrorObservation } from '../envs/error-observation';
import { type Memory, canonical, majority } from './memory';

interface Imagined {
  call: ToolCall;
  step: number;
  fails: boolean;
  confidence: number;
}

function imagined(memory: Memory): Imagined[] {
  return memory.rehearsals.flatMap((r) =>
    r.plan.map((call, step) => ({ call, step, fails: isErrorObservation(r.predictedObservations[step] ?? ''), confidence: r.confidence })),
  );
}

/** The call to make instead of `call` at plan step `step`, or null when the rehearsals give no reason to change it. */
export function saferCall(memory: Memory, call: ToolCall, step: number): ToolCall | null {
  const all = imagined(memory);
  const key = canonical(call);
  const same = all.filter((x) => canonical(x.call) === key);
  // A call no rehearsal made, or one some rehearsal imagined succeeding, is the policy's to make.
  if (same.length === 0 || same.some((x) => !x.fails)) return null;
  const failing = new Set(all.filter((x) => x.fails).map((x) => canonical(x.call)));
  const alternatives = all.filter((x) => x.step === step && !x.fails && !failing.has(canonical(x.call)));
  return majority(alternatives.map((x) => ({ key: canonical(x.call), value: x.call, confidence: x.confidence }))) ?? null;
}

/** The rollout's `revise` hook for a safe commit: each call of the policy's act, checked against the memory. */
export function safeReviser(memory: Memory): (action: Action, calls: readonly ToolCall[]) => Action {
  return (action, calls) => {
    if (action.kind !== 'calls') return action;
    let changed = false;
    const revised = action.calls.map((call, i) => {
      const safer = saferCall(memory, call, calls.length + i);
      if (safer) changed = true;
      return safer ?? call;
    });
    return changed ? { kind: 'calls', calls: revised } : action;
  };
}
