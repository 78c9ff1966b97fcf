/**
 * Adapts a generator-style expert script (yields actions, receives observations, returns the
 * final action) to the ExpertPolicy interface. After the script ends it keeps answering the same.
 */
import type { Action, ExpertPolicy } from '../types';

export function scriptExpert(script: Generator<Action, Action, string>): ExpertPolicy {
  let started = false;
  let final: Action | null = null;
  return {
    next(lastObservation: string): Action {
      if (final) return final;
      const r = started ? script.next(lastObservation) : script.next();
      started = true;
      if (r.done) final = r.value;
      return r.value;
    },
  };
}
