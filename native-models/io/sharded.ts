// Hugging Face checkpoints above a few GB are split into shards listed by
// `model.safetensors.index.json`: {"metadata": {...}, "weight_map": {tensor name: shard file name}}.

import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { JsonBoundsError } from './bounded-json';
import { FileBoundsError, readBoundedJsonFile } from './bounded-file';
import { MAX_TENSORS, type ReadOptions, type Safetensors, SafetensorsError, type TensorMap, readSafetensors } from './safetensors';

export const SHARD_INDEX_FILE = 'model.safetensors.index.json';
export const SINGLE_WEIGHTS_FILE = 'model.safetensors';
/** An index is a small JSON list of names (about 100 bytes a tensor); anything bigger is not one. */
const MAX_INDEX_BYTES = 16 * 1024 * 1024;
const MAX_INDEX_DEPTH = 8;

function readIndex(indexPath: string): Map<string, string[]> {
  const fail = (msg: string) => new SafetensorsError('BAD_INDEX', msg, indexPath);
  let json: unknown;
  try {
    json = readBoundedJsonFile(indexPath, { maxBytes: MAX_INDEX_BYTES, maxDepth: MAX_INDEX_DEPTH }, 'the index');
  } catch (e) {
    if (e instanceof FileBoundsError) throw new SafetensorsError(e.kind === 'too_large' ? 'BAD_INDEX' : 'IO', e.message, indexPath);
    if (e instanceof JsonBoundsError) throw fail(e.message);
    throw e;
  }
  const weightMap = (json as { weight_map?: unknown } | null)?.weight_map;
  if (weightMap === null || typeof weightMap !== 'object' || Array.isArray(weightMap)) throw fail('missing "weight_map" object');
  const entries = Object.entries(weightMap as Record<string, unknown>);
  if (entries.length > MAX_TENSORS) throw fail(`"weight_map" lists ${entries.length} tensors, over the limit of ${MAX_TENSORS}`);
  const byShard = new Map<string, string[]>();
  for (const [tensor, shard] of entries) {
    // Shard names are plain file names next to the index: anything else could read outside the folder.
    if (typeof shard !== 'string' || shard === '' || basename(shard) !== shard || shard === '.' || shard === '..') {
      throw fail(`tensor "${tensor}" maps to an invalid shard file name ${JSON.stringify(shard)}`);
    }
    const names = byShard.get(shard) ?? [];
    names.push(tensor);
    byShard.set(shard, names);
  }
  return byShard;
}

/** Read every tensor a sharded checkpoint's index lists; each must be in the shard the index names. */
export function readShardedSafetensors(dir: string, opts: Omit<ReadOptions, 'only'> = {}): Safetensors {
  const byShard = readIndex(join(dir, SHARD_INDEX_FILE));
  const tensors: TensorMap = new Map();
  const metadata: Record<string, string> = {};
  for (const [shard, names] of [...byShard.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const part = readSafetensors(join(dir, shard), { ...opts, only: names });
    for (const [name, t] of part.tensors) tensors.set(name, t);
    Object.assign(metadata, part.metadata);
  }
  return { tensors: new Map([...tensors.entries()].sort(([a], [b]) => (a < b ? -1 : 1))), metadata };
}

/** The safetensors files holding a model folder's weights (one file, or the shards its index names). */
export function hfWeightFiles(dir: string): string[] {
  if (existsSync(join(dir, SHARD_INDEX_FILE))) return [...readIndex(join(dir, SHARD_INDEX_FILE)).keys()].sort().map((shard) => join(dir, shard));
  if (existsSync(join(dir, SINGLE_WEIGHTS_FILE))) return [join(dir, SINGLE_WEIGHTS_FILE)];
  throw new SafetensorsError('IO', `neither ${SINGLE_WEIGHTS_FILE} nor ${SHARD_INDEX_FILE} found`, dir);
}

/** The weights of a Hugging Face model folder, single-file or sharded. */
export function readHfWeights(dir: string, opts: Omit<ReadOptions, 'only'> = {}): Safetensors {
  if (existsSync(join(dir, SHARD_INDEX_FILE))) return readShardedSafetensors(dir, opts);
  if (existsSync(join(dir, SINGLE_WEIGHTS_FILE))) return readSafetensors(join(dir, SINGLE_WEIGHTS_FILE), opts);
  throw new SafetensorsError('IO', `neither ${SINGLE_WEIGHTS_FILE} nor ${SHARD_INDEX_FILE} found`, dir);
}
