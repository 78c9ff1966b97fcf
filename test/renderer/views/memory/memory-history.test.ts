import { describe, expect, it } from 'vitest';
import type { RolloutSummary } from '../../../../electron/contract';
import { rootOf, splitMemoryRollouts, versionFamily } from '../../../../renderer/src/views/memory/memory-history';

const memory = (id: number, parentId: number | null, version: number, rehearsals = 0) => ({ id, parentId, version, structured: { rehearsals: Array.from({ length: rehearsals }, () => ({})) } });

// Two families for the same task: 1 → 3 → 4 and 1 → 5 (branches), and 2 on its own.
const memories = [memory(1, null, 1, 2), memory(2, null, 1, 1), memory(3, 1, 2), memory(4, 3, 3), memory(5, 1, 2)];

describe('version family', () => {
  it('walks parents to the memory built from rehearsals', () => {
    expect(rootOf(memories, 4)).toBe(1);
    expect(rootOf(memories, 2)).toBe(2);
    // A parent not in the list (older than the page) ends the walk at the oldest known version.
    expect(rootOf([memory(9, 8, 2)], 9)).toBe(9);
  });

  it('lists every version of the family, oldest first, branches included', () => {
    expect(versionFamily(memories, 5).map((m) => m.id)).toEqual([1, 3, 5, 4]);
    expect(versionFamily(memories, 2).map((m) => m.id)).toEqual([2]);
  });
});

function rollout(id: number, memoryId: number | null, purpose: RolloutSummary['purpose'] = null): RolloutSummary {
  return { id, runId: 'r', step: 1, taskId: 't', env: 'mock', mode: 'test-time', reward: 0, success: false, envCalls: 0, envWallMs: 0, tokens: 0, turnCount: 2, memoryId, purpose, createdAt: id };
}

describe('splitMemoryRollouts', () => {
  it('goes by each rollout\'s stated purpose, whatever the order', () => {
    const family = versionFamily(memories, 4);
    // A commit of the root stored before its rehearsals (ids out of order) is still a commit.
    const rollouts = [rollout(10, 1, 'commit'), rollout(11, 1, 'rehearsal'), rollout(12, 1, 'rehearsal'), rollout(13, 4, 'commit'), rollout(14, 2, 'rehearsal')];
    const { rehearsals, commits } = splitMemoryRollouts(rollouts, family);
    expect(rehearsals.map((r) => r.id)).toEqual([11, 12]);
    expect(commits.map((r) => r.id)).toEqual([13, 10]);
  });

  it('for rows stored without a purpose, takes the first rollouts of the root, one per summarised rehearsal, as rehearsals and the rest of the family as commits (newest first)', () => {
    const family = versionFamily(memories, 4);
    const rollouts = [rollout(10, 1), rollout(11, 1), rollout(12, 2), rollout(13, 1), rollout(14, 4), rollout(15, null), rollout(16, 5)];
    const { rehearsals, commits } = splitMemoryRollouts(rollouts, family);
    expect(rehearsals.map((r) => r.id)).toEqual([10, 11]);
    expect(commits.map((r) => r.id)).toEqual([16, 14, 13]);
  });

  it('has nothing for an empty family', () => {
    expect(splitMemoryRollouts([rollout(1, 1)], [])).toEqual({ rehearsals: [], commits: [] });
  });
});
