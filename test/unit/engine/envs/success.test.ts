import { describe, expect, it } from 'vitest';
import type { ChecklistResult, EnvCheck } from '../../../../electron/engine/envs/types';
import { episodeSucceeded } from '../../../../electron/engine/envs/success';

const stateHolds: EnvCheck = { passed: true, checks: [{ name: 'row exists', passed: true }, { name: 'tool server stayed up', passed: true }] };
const checklist = (passed: boolean[], formatError = false): ChecklistResult => ({
  score: passed.filter(Boolean).length / passed.length,
  formatError,
  items: passed.map((p, index) => ({ index, kind: 'call', description: `item ${index}`, weight: 1, passed: p, detail: '' })),
});
const mcpEpisode = (rejected: string[] = []) => ({ rejectedCalls: () => rejected });
const builtinEpisode = {};

describe('episodeSucceeded: one rule for rollouts, the oracle and mcp serve', () => {
  it("on a user's MCP server a wrong call and a wrong answer over a state that checks out is no success", () => {
    expect(episodeSucceeded(mcpEpisode(), stateHolds, checklist([false, false]))).toBe(false);
    expect(episodeSucceeded(mcpEpisode(), stateHolds, checklist([true, false]))).toBe(false);
    expect(episodeSucceeded(mcpEpisode(), stateHolds, checklist([true, true]))).toBe(true);
    // A call the server refused fails the episode even when the checklist holds.
    expect(episodeSucceeded(mcpEpisode(['insert_row: constraint failed']), stateHolds, checklist([true, true]))).toBe(false);
  });

  it('on a built-in env the end-state check decides (tau2 rewards), and a format error always fails', () => {
    expect(episodeSucceeded(builtinEpisode, stateHolds, checklist([false, true]))).toBe(true);
    expect(episodeSucceeded(builtinEpisode, { passed: false, checks: [] }, checklist([true]))).toBe(false);
    expect(episodeSucceeded(mcpEpisode(), stateHolds, checklist([true], true))).toBe(false);
    expect(episodeSucceeded(builtinEpisode, stateHolds, checklist([true], true))).toBe(false);
  });
});
