// Which process is which, across a pid's reuse: a pid names a process only together with its start time.

import fs from 'node:fs';

/** Field 22 of /proc/<pid>/stat: start time in clock ticks since boot; null where there is no procfs. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses; fields after it are plain.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether `pid` is a live process that started at `start` (a reused pid is another process); where there is no procfs, a live pid counts. */
export function processRunning(pid: number, start: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = processStartTime(pid);
  return now === null || start === null || now === start;
}
