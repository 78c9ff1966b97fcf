// Crash tests need to SIGKILL a process at an exact point inside a write (a folder filled but not
// swapped in, a store transaction not yet committed); timing a kill from outside cannot hit that.
import { writeSync } from 'node:fs';

/**
 * When ENVACE_TEST_PAUSE_AT is a prefix of `name`, print `paused <name>` on stdout and block this
 * thread for good, so the test that spawned the process can kill it there. A no-op otherwise.
 */
export function pausePoint(name: string): void {
  const want = process.env.ENVACE_TEST_PAUSE_AT;
  if (!want || !name.startsWith(want)) return;
  // fd 1 directly: a worker thread's process.stdout is relayed by the main thread, which may be the one blocked.
  writeSync(1, `paused ${name}\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}
