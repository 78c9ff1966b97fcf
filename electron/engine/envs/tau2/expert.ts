/**
 * Experts that replay a fixed plan: the gold calls one per turn, then the final answer.
 * Used where the gold reference already is the solution (tau2 tasks, tau-bench tickets).
 */
import type { Action, ExpertPolicy, ToolCall } from '../types';

export function replayExpert(calls: readonly ToolCall[], answer: string): ExpertPolicy {
  let i = 0;
  return {
    next(): Action {
      if (i < calls.length) return { kind: 'calls', calls: [calls[i++]] };
      return { kind: 'answer', text: answer };
    },
  };
}
