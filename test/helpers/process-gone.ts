import { readFileSync } from 'node:fs';

/**
 * Whether process `pid` has ended: no such process (ESRCH), or on Linux a zombie, dead with only its
 * exit status left. A killed grandchild is reparented to pid 1, and not every container's pid 1 reaps
 * (this sandbox's does not), so `process.kill(pid, 0)` alone would call a dead process alive.
 */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  if (process.platform !== 'linux') return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return true; // gone between the two looks
  }
}
