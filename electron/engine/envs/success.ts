/**
 * When an episode counts as a success: one rule for rollouts (training metrics, eval), the oracle and
 * `mcp serve`'s `finish`, so the three never disagree on the same transcript.
 *
 * Every episode: the environment's end-state check passed and the episode made no format error. An
 * episode that can tell a rejected call (a user's MCP server, where the end-state check only sees the
 * server's state) is held to the gold replay's whole claim as well: every call accepted and every
 * checklist item met — a wrong call and a wrong answer over a state that happens to check out is not
 * a success.
 */
import type { ChecklistResult, Episode, EnvCheck } from './types';

export function episodeSucceeded(episode: Pick<Episode, 'rejectedCalls'>, envCheck: EnvCheck, checklist: ChecklistResult): boolean {
  // A checklist with nothing checkable (only NL assertions) never makes a success, whatever the end state.
  if (!envCheck.passed || checklist.formatError || checklist.unchecked) return false;
  if (episode.rejectedCalls === undefined) return true;
  return episode.rejectedCalls().length === 0 && checklist.items.every((i) => i.passed || i.weight === 0);
}
