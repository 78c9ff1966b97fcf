import type { Run } from '../../../../electron/contract';

/** Where the Dashboard remembers the run last watched, so the sidebar link comes back to it. */
export const LAST_RUN_KEY = 'envace.dashboard.run';

/**
 * The run the Dashboard opens on without one in its link: the one last watched if it still exists,
 * else one training now, else the newest. Null when there are no runs.
 */
export function preselectedRun(runs: readonly Pick<Run, 'id' | 'status' | 'createdAt'>[], remembered: string | null): string | null {
  if (remembered && runs.some((r) => r.id === remembered)) return remembered;
  const running = runs.find((r) => r.status === 'running');
  if (running) return running.id;
  const newest = [...runs].sort((a, b) => b.createdAt - a.createdAt)[0];
  return newest?.id ?? null;
}

/** localStorage can be missing or refuse (a locked-down browser profile): remembering is a convenience, never an error. */
export function remembered(): string | null {
  try {
    return window.localStorage.getItem(LAST_RUN_KEY);
  } catch {
    return null;
  }
}

export function remember(runId: string): void {
  try {
    window.localStorage.setItem(LAST_RUN_KEY, runId);
  } catch {
    // not remembered; the link still works
  }
}
