// Where environments put the folders an episode needs (sandboxes, server state): under the data
// home, so that nothing the workbench writes lands outside it. The engine (and its compute worker,
// which has its own copy of this module) names the root at start; the system's temp folder is
// only the fallback for code that runs without an engine (unit tests of one environment).
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let root: string | null = null;

export function setScratchRoot(dir: string): void {
  root = dir;
}

/** `<home>/tmp/<name>` once an engine has started, else a folder in the system's temp folder. */
export function scratchDir(name: string): string {
  return join(root ?? join(tmpdir(), 'envace'), name);
}
