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
  /** The defaults forms start from (settings.get / settings.set). */
  settings: string;
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
    settings: path.join(home, 'settings.json'),
  };
}

/** Errors that say the home can be read but not written (a read-only mount, a folder of another user). */
const READ_ONLY_CODES = new Set(['EROFS', 'EACCES', 'EPERM']);

/**
 * The home's folders, made where missing. A home that exists but cannot be written (a read-only mount,
 * a backup disk) is opened as it is, so that it can still be listed and exported from.
 */
export function ensureHome(home: string): HomePaths {
  const paths = homePaths(home);
  for (const dir of [paths.home, paths.runs, paths.exports, paths.models, paths.logs]) {
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch (error) {
      if (!READ_ONLY_CODES.has((error as NodeJS.ErrnoException).code ?? '') || !fs.existsSync(paths.home)) throw error;
    }
  }
  return paths;
}

/** Whether files can be created in the home (false on a read-only mount). */
export function homeWritable(home: string): boolean {
  try {
    fs.accessSync(home, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The folder of one run: checkpoints live under it. */
export function runDir(paths: HomePaths, runId: string): string {
  return path.join(paths.runs, runId);
}
