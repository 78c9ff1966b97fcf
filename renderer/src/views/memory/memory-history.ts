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

/**
 * Which stored rollouts of a memory family are its private rehearsals and which are committed
 * real runs. Rollouts say so (`purpose`); rows stored before they did are told apart by order:
 * the rehearsals were inserted together with the memory built from them, so they are the first
 * rollouts attached to the family's root, one per rehearsal summarised in it.
 */
export function splitMemoryRollouts(
  rollouts: RolloutSummary[],
  family: Array<Pick<Memory, 'id' | 'parentId' | 'version'> & { structured: { rehearsals: unknown[] } }>,
): { rehearsals: RolloutSummary[]; commits: RolloutSummary[] } {
  const root = family[0];
  if (!root) return { rehearsals: [], commits: [] };
  const ids = new Set(family.map((m) => m.id));
  const mine = rollouts.filter((r) => r.memoryId !== null && ids.has(r.memoryId)).sort((a, b) => a.id - b.id);
  const unlabelled = mine.filter((r) => r.purpose === null);
  const byOrder = new Set(unlabelled.filter((r) => r.memoryId === root.id).slice(0, root.parentId === null ? root.structured.rehearsals.length : 0).map((r) => r.id));
  const isRehearsal = (r: RolloutSummary) => (r.purpose === null ? byOrder.has(r.id) : r.purpose === 'rehearsal');
  return {
    rehearsals: mine.filter(isRehearsal),
    commits: mine.filter((r) => !isRehearsal(r)).reverse(),
  };
}
