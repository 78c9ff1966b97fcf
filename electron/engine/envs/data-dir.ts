/**
 * Where benchmark data lives. Data is read at run time, never bundled: by default the
 * `shared/data` folder next to the repository, or `ENVACE_DATA_DIR` when set.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export class DataMissingError extends Error {
  override name = 'DataMissingError';
}

/** The repository root: three levels above this file (electron/engine/envs). */
function repoRoot(): string {
  try {
    return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  } catch {
    return process.cwd();
  }
}

export function dataDir(): string {
  const override = process.env.ENVACE_DATA_DIR;
  return override ? path.resolve(override) : path.resolve(repoRoot(), '../shared/data');
}

/** Absolute path of a file under the data folder; throws DataMissingError naming the path if absent. */
export function dataPath(...parts: string[]): string {
  const root = dataDir();
  if (!existsSync(root)) {
    throw new DataMissingError(`benchmark data folder not found: ${root} (set ENVACE_DATA_DIR to the folder holding tau2-bench/, tau-bench/ …)`);
  }
  const file = path.join(root, ...parts);
  if (!existsSync(file)) throw new DataMissingError(`benchmark data file not found: ${file}`);
  return file;
}
