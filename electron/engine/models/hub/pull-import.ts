import { existsSync } from 'node:fs';
import path from 'node:path';
import { modelNameProblem } from '../names';
import { type ModelEntry, ModelRegistryError, importModel } from '../registry';
import { parseRepoRef } from './errors';
import { type PullOptions, type PullProgress, type PullResult, pullModel } from './pull';

/** The name a pulled model is imported under unless the caller picks one: the repo's NAME, cut to the folder-name rule. */
export function defaultModelName(ref: string): string {
  const { repo } = parseRepoRef(ref);
  const name = repo.slice(repo.indexOf('/') + 1).slice(0, 64).replace(/\.+$/, '');
  return modelNameProblem(name) === undefined ? name : `hub-${name.replace(/[^A-Za-z0-9._-]/g, '_')}`.slice(0, 64);
}

export interface PullImportOptions extends Omit<PullOptions, 'onProgress'> {
  name?: string;
  modelsDir: string;
  onProgress?: (p: PullProgress & { phase: 'resolving' | 'downloading' | 'importing' }) => void;
}

/**
 * Pull a repo into the Hub cache, then import the snapshot through the HF import, so a pulled model is
 * one more imported model (models/<name>/ with its manifest, the source naming repo and commit). A name
 * already taken is refused before anything is downloaded.
 */
export async function pullAndImport(opts: PullImportOptions): Promise<{ pull: PullResult; entry: ModelEntry }> {
  const name = opts.name ?? defaultModelName(opts.ref);
  if (existsSync(path.join(opts.modelsDir, name))) {
    throw new ModelRegistryError('EXISTS', `a model named "${name}" is already imported; pick another name (--name) or use it as it is`);
  }
  opts.onProgress?.({ phase: 'resolving', file: '', doneBytes: 0, totalBytes: 0 });
  const pull = await pullModel({ ...opts, onProgress: (p) => opts.onProgress?.({ ...p, phase: 'downloading' }) });
  const total = pull.files.reduce((n, f) => n + f.size, 0);
  opts.onProgress?.({ phase: 'importing', file: '', doneBytes: total, totalBytes: total });
  const entry = await importModel({ hfDir: pull.dir, name, modelsDir: opts.modelsDir, source: `hf://${pull.repo}@${pull.commit}` });
  return { pull, entry };
}
