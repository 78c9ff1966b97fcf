import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where the workbench keeps its data (architecture.md "Data home"). */
export interface HomePaths {
  home: string;
  db: string;
  runs: string;
  exports: string;
  models: string;
  logs: string;
}

export function resolveHome(explicit?: string): string {
  const chosen = explicit ?? process.env.ENVACE_HOME ?? path.join(os.homedir(), '.envace');
  return path.resolve(chosen);
}

export function homePaths(home: string): HomePaths {
  return {
    home,
    db: path.join(home, 'workbench.db'),
    runs: path.join(home, 'runs'),
    exports: path.join(home, 'exports'),
    models: path.join(home, 'models'),
    logs: path.join(home, 'logs'),
  };
}

export function ensureHome(home: string): HomePaths {
  const paths = homePaths(home);
  for (const dir of [paths.home, paths.runs, paths.exports, paths.models, paths.logs]) fs.mkdirSync(dir, { recursive: true });
  return paths;
}

/** The folder of one run: checkpoints live under it. */
export function runDir(paths: HomePaths, runId: string): string {
  return path.join(paths.runs, runId);
}
