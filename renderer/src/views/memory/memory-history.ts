import type { Memory, RolloutSummary } from '../../../../electron/contract';

/** The Memory view's pure parts: a memory's family of versions, and which rollouts belong to it. */

type Node = Pick<Memory, 'id' | 'parentId' | 'version'>;

/** The version an edit chain started from (built from rehearsals); the memory itself when its parent is unknown. */
export function rootOf(memories: Node[], id: number): number {
  const byId = new Map(memories.map((m) => [m.id, m]));
  const seen = new Set<number>();
  let current = id;
  for (;;) {
    const parent = byId.get(current)?.parentId ?? null;
    if (parent === null || !byId.has(parent) || seen.has(parent)) return current;
    seen.add(current);
    current = parent;
  }
}

/** Every version sharing `id`'s root, oldest first: the edit history shown beside the editor. */
export function versionFamily<T extends Node>(memories: T[], id: number): T[] {
  const root = rootOf(memories, id);
  return memories.filter((m) => rootOf(memories, m.id) === root).sort((a, b) => a.version - b.version || a.id - b.id);
}

/** Private rehearsals are stored as "test-time" rollouts with no env calls; commits are real runs. */
export function splitMemoryRollouts(rollouts: RolloutSummary[], familyIds: Set<number>): { rehearsals: RolloutSummary[]; commits: RolloutSummary[] } {
  const mine = rollouts.filter((r) => r.memoryId !== null && familyIds.has(r.memoryId));
  return {
    rehearsals: mine.filter((r) => r.mode === 'test-time').sort((a, b) => a.id - b.id),
    commits: mine.filter((r) => r.mode !== 'test-time').sort((a, b) => b.id - a.id),
  };
}
