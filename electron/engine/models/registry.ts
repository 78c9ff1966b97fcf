// Imported models: Hugging Face folders copied into `<modelsDir>/<name>/`, validated on the copy (config,
// weights against config, tokenizer against vocabulary) before the folder appears under its name.
// Store-free: callers that keep a database pass `onImported` or record the returned entry themselves.

import { copyFile } from 'node:fs/promises';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import {
  AtomicWriteError,
  type HfModelShape,
  type ModelConfig,
  ModelConfigSchema,
  type Params,
  type TextTokenizer,
  architectureFor,
  countParams,
  importHfModel,
  loadTokenizer,
  readHfConfig,
  recoverAtomicDir,
  writeDirAtomic,
} from '../../../native-models';
import { readBoundedJsonFile } from '../../../native-models/io/bounded-file';
import { SHARD_INDEX_FILE, hfWeightFiles } from '../../../native-models/io/sharded';
import { ModelConvertError, configFromHfShape, paramsFromHfWeights } from './convert';
import { isAtomicLeftover, modelNameProblem } from './names';

export const MANIFEST_FILE = 'envace-model.json';
/** A manifest is a name, a source and a model config: a few hundred bytes. */
const MANIFEST_BOUNDS = { maxBytes: 64 * 1024, maxDepth: 8 };
/** Weights are held in memory as float32 to run; a folder beyond this is refused before copying. */
export const DEFAULT_MAX_IMPORT_BYTES = 8 * 1024 ** 3;

/** Files of a Hugging Face model folder that an import keeps (shards come from the index). */
const MODEL_FILES = [
  'config.json',
  'generation_config.json',
  'model.safetensors',
  'model.safetensors.index.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'chat_template.jinja',
  'README.md',
  'LICENSE',
] as const;
const SHARD_NAME = /^[A-Za-z0-9._-]+\.safetensors$/;

export type ModelRegistryErrorCode = 'BAD_NAME' | 'EXISTS' | 'NOT_FOUND' | 'NOT_A_MODEL' | 'TOO_LARGE' | 'INVALID';

export class ModelRegistryError extends Error {
  override readonly name = 'ModelRegistryError';
  constructor(
    readonly code: ModelRegistryErrorCode,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

const ManifestSchema = z.object({
  version: z.literal(1),
  name: z.string(),
  source: z.string(),
  importedAt: z.string(),
  architecture: z.string(),
  config: ModelConfigSchema,
});
type Manifest = z.infer<typeof ManifestSchema>;

export interface ModelEntry {
  name: string;
  /** The model's folder: a Hugging Face layout plus `envace-model.json`. */
  path: string;
  /** Where it was imported from. */
  source: string;
  importedAt: string;
  architecture: string;
  config: ModelConfig;
  paramCount: number;
}

export interface ImportModelOptions {
  hfDir: string;
  /** Default: the source folder's name. */
  name?: string;
  modelsDir: string;
  maxBytes?: number;
  /** What the manifest records as the origin and errors name (default hfDir): a GGUF file staged as hfDir. */
  source?: string;
  /** Called once the model is in place (e.g. to record it in the store). */
  onImported?: (entry: ModelEntry) => void;
}

export interface LoadedModel {
  name: string;
  path: string;
  config: ModelConfig;
  shape: HfModelShape;
  weights: Params;
  tokenizer: TextTokenizer;
}

function checkName(name: unknown): string {
  const problem = modelNameProblem(name);
  if (problem) throw new ModelRegistryError('BAD_NAME', problem);
  return name as string;
}

/** Shard file names an index lists (read within its bounds); an unreadable index lists none (validation of the copy reports it). */
function shardNames(hfDir: string): string[] {
  if (!existsSync(join(hfDir, SHARD_INDEX_FILE))) return [];
  try {
    return hfWeightFiles(hfDir)
      .map((f) => basename(f))
      .filter((s) => SHARD_NAME.test(s));
  } catch {
    return [];
  }
}

function filesToCopy(hfDir: string, maxBytes: number): string[] {
  if (!existsSync(hfDir) || !statSync(hfDir).isDirectory()) throw new ModelRegistryError('NOT_A_MODEL', `${hfDir} is not a folder`);
  if (!existsSync(join(hfDir, 'config.json')))
    throw new ModelRegistryError('NOT_A_MODEL', `${hfDir} has no config.json: not a Hugging Face model folder`);
  if (!existsSync(join(hfDir, 'tokenizer.json')))
    throw new ModelRegistryError('NOT_A_MODEL', `${hfDir} has no tokenizer.json (models without a Hugging Face fast tokenizer are not supported)`);
  const names = [...MODEL_FILES, ...shardNames(hfDir)].filter((f) => existsSync(join(hfDir, f)));
  let total = 0;
  for (const f of names) {
    const s = statSync(join(hfDir, f));
    if (!s.isFile()) throw new ModelRegistryError('NOT_A_MODEL', `${join(hfDir, f)} is not a file`);
    total += s.size;
  }
  if (total > maxBytes)
    throw new ModelRegistryError('TOO_LARGE', `${hfDir} holds ${total} bytes of model files, over the import limit of ${maxBytes}`);
  return names;
}

/** Retell a conversion problem as one in `file`, so every import error names the file at fault. */
function inFile<T>(file: string, run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof ModelConvertError) throw new ModelConvertError(`${file}: ${e.message}`);
    throw e;
  }
}

/**
 * Model, tokenizer and config of a folder, cross-checked, cheapest first: config.json, then the tokenizer
 * against its vocab_size, then the weights. Throws ModelRegistryError('INVALID') naming the problem.
 */
export function validateModelFolder(dir: string, label = dir): { shape: HfModelShape; config: ModelConfig; weights: Params; tokenizer: TextTokenizer } {
  try {
    const config = inFile('config.json', () => configFromHfShape(readHfConfig(dir)));
    const tokenizer = loadTokenizer(dir);
    if (tokenizer.vocabSize > config.vocabSize) {
      throw new Error(`the tokenizer has ${tokenizer.vocabSize} tokens but the model's vocabulary is ${config.vocabSize} (tokenizer.json ids against config.json "vocab_size")`);
    }
    const model = importHfModel(dir);
    const weights = inFile('model.safetensors', () => paramsFromHfWeights(config, model.weights));
    return { shape: model.shape, config, weights, tokenizer };
  } catch (e) {
    // Problems are found in the import's temp copy; name the user's folder instead.
    const message = (e as Error).message.split(dir).join(label);
    throw new ModelRegistryError('INVALID', `${label} is not a usable model: ${message}`, e);
  }
}

function entryFrom(path: string, m: Manifest): ModelEntry {
  return {
    name: m.name,
    path,
    source: m.source,
    importedAt: m.importedAt,
    architecture: m.architecture,
    config: m.config,
    paramCount: countParams(m.config),
  };
}

/** Copy and validate a Hugging Face folder into `<modelsDir>/<name>/`. Nothing appears under the name unless it is valid. */
export async function importModel(opts: ImportModelOptions): Promise<ModelEntry> {
  const hfDir = resolve(opts.hfDir);
  const name = checkName(opts.name ?? basename(hfDir));
  const dest = join(resolve(opts.modelsDir), name);
  const taken = () => new ModelRegistryError('EXISTS', `a model named "${name}" already exists (${dest}); choose another name`);
  if (existsSync(dest)) throw taken();
  const files = filesToCopy(hfDir, opts.maxBytes ?? DEFAULT_MAX_IMPORT_BYTES);
  let entry: ModelEntry | undefined;
  try {
    await writeDirAtomic(dest, async (tmp) => {
      for (const f of files) await copyFile(join(hfDir, f), join(tmp, f));
      const source = opts.source ?? hfDir;
      const { shape, config } = validateModelFolder(tmp, source);
      const manifest: Manifest = {
        version: 1,
        name,
        source,
        importedAt: new Date().toISOString(),
        architecture: architectureFor(shape),
        config,
      };
      writeFileSync(join(tmp, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
      // Checked again last: another import may have taken the name while this one copied.
      if (existsSync(dest)) throw taken();
      entry = entryFrom(dest, manifest);
    });
  } catch (e) {
    // The atomic writer wraps what the fill threw; callers get the typed error itself.
    throw e instanceof AtomicWriteError && e.cause instanceof Error ? e.cause : e;
  }
  opts.onImported?.(entry!);
  return entry!;
}

function readManifest(dir: string): Manifest | undefined {
  try {
    const r = ManifestSchema.safeParse(readBoundedJsonFile(join(dir, MANIFEST_FILE), MANIFEST_BOUNDS));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** Imported models, by name. Folders without a valid manifest (not made by importModel) are left out. */
export function listModels(modelsDir: string): ModelEntry[] {
  const root = resolve(modelsDir);
  if (!existsSync(root)) return [];
  const out: ModelEntry[] = [];
  for (const d of readdirSync(root, { withFileTypes: true })) {
    if (!d.isDirectory() || isAtomicLeftover(d.name) || modelNameProblem(d.name)) continue;
    const m = readManifest(join(root, d.name));
    if (m && m.name === d.name) out.push(entryFrom(join(root, d.name), m));
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** An imported model ready to run: config, weights (our parameter names) and tokenizer, validated again. */
export function loadModel(modelsDir: string, name: string): LoadedModel {
  const dir = join(resolve(modelsDir), checkName(name));
  recoverAtomicDir(dir);
  if (!existsSync(dir)) throw new ModelRegistryError('NOT_FOUND', `no model named "${name}" in ${resolve(modelsDir)}`);
  const m = validateModelFolder(dir, dir);
  return { name, path: dir, ...m };
}

/** Delete an imported model's folder. Only folders an import made (with a manifest) are removed. */
export function removeModel(modelsDir: string, name: string): void {
  const dir = join(resolve(modelsDir), checkName(name));
  recoverAtomicDir(dir);
  if (!existsSync(dir)) throw new ModelRegistryError('NOT_FOUND', `no model named "${name}" in ${resolve(modelsDir)}`);
  if (readManifest(dir)?.name !== name)
    throw new ModelRegistryError('NOT_A_MODEL', `${dir} was not made by an import (no valid ${MANIFEST_FILE}); it is left as it is`);
  rmSync(dir, { recursive: true, force: true });
}
