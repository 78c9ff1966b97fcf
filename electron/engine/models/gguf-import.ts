// Import a llama.cpp GGUF file: bounded against the file and the import limit, converted into a Hugging Face
// folder in a temp staging folder (native-models/io/gguf-import.ts), then imported as any HF folder is, so the
// stored model and every path that loads it are the same as for a Hugging Face import.

import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { GgufError, decodeGguf, ggufFloat32Bytes, ggufToHfFolder } from '../../../native-models';
import { DEFAULT_MAX_IMPORT_BYTES, type ImportModelOptions, type ModelEntry, ModelRegistryError, importModel } from './registry';

export interface ImportGgufOptions extends Omit<ImportModelOptions, 'hfDir' | 'source'> {
  ggufFile: string;
}

/** A model name from the file name: "SmolLM2-135M.Q4_1.gguf" → "SmolLM2-135M.Q4_1". */
const nameFrom = (file: string) => basename(file).replace(/\.gguf$/i, '');

export async function importGgufModel(opts: ImportGgufOptions): Promise<ModelEntry> {
  const file = resolve(opts.ggufFile);
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_IMPORT_BYTES;
  let size: number;
  try {
    const s = statSync(file);
    if (!s.isFile()) throw new ModelRegistryError('NOT_A_MODEL', `${file} is not a file`);
    size = s.size;
  } catch (e) {
    if (e instanceof ModelRegistryError) throw e;
    throw new ModelRegistryError('NOT_A_MODEL', `${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (size > maxBytes) throw new ModelRegistryError('TOO_LARGE', `${file} is ${size} bytes, over the import limit of ${maxBytes}`);
  const staging = mkdtempSync(join(tmpdir(), 'envace-gguf-'));
  try {
    try {
      const parsed = decodeGguf(readFileSync(file));
      // Quantised weights grow up to 8× once float32; the limit is on what the import holds.
      const floatBytes = ggufFloat32Bytes(parsed);
      if (floatBytes > maxBytes) throw new ModelRegistryError('TOO_LARGE', `${file} holds ${floatBytes} bytes of weights once dequantised to float32, over the import limit of ${maxBytes}`);
      ggufToHfFolder(parsed, staging);
    } catch (e) {
      if (e instanceof GgufError) throw new ModelRegistryError('INVALID', `${file} is not a usable model: ${e.message}`, e);
      throw e;
    }
    return await importModel({ ...opts, hfDir: staging, name: opts.name ?? nameFrom(file), source: file });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
