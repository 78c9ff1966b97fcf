// Where an export may write. An export replaces its whole folder (atomic swap), so a folder with other
// things in it, or one that is, holds or sits inside the app's own data (runs, imported models, the
// database), must never be chosen by accident.

import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

export type ExportErrorCode =
  'OUT_DIR_NOT_EMPTY' | 'OUT_DIR_PROTECTED' | 'OUT_DIR_NOT_A_FOLDER' | 'OUT_DIR_FOREIGN_FILES' | 'NO_LORA' | 'TOO_LARGE' | 'BAD_INPUT';

export class ExportError extends Error {
  override readonly name = 'ExportError';
  constructor(
    readonly code: ExportErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** File names an export writes; `force` replaces only folders made of these. */
export const EXPORT_FILE_PATTERNS: readonly RegExp[] = [
  /^(config|generation_config|tokenizer|tokenizer_config|special_tokens_map|adapter_config)\.json$/,
  /^(model|adapter_model)\.safetensors$/,
  /^model\.onnx$/,
  /^model-(f32|f16)\.gguf$/,
  /^chat_template\.jinja$/,
  /^README\.md$/,
];

/** The folders an export writes and the files each may hold: Optimum's ONNX layout, a LoRA adapter's base (a Hugging Face folder). */
const EXPORT_SUBFOLDERS: Record<string, readonly RegExp[]> = { onnx: [/^model\.onnx(_data)?$/], base: EXPORT_FILE_PATTERNS };

/** An entry of a previous export: a file it writes, or one of its folders holding only the files that folder gets. */
function isExportEntry(dir: string, entry: string): boolean {
  const files = Object.hasOwn(EXPORT_SUBFOLDERS, entry) ? EXPORT_SUBFOLDERS[entry] : undefined;
  if (!files) return EXPORT_FILE_PATTERNS.some((re) => re.test(entry));
  const sub = join(dir, entry);
  return statSync(sub).isDirectory() && readdirSync(sub).every((f) => files.some((re) => re.test(f)));
}

/** Absolute path with symlinks resolved as far as the path exists. */
function canonical(path: string): string {
  const abs = resolve(path);
  let existing = abs;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  const real = existsSync(existing) ? realpathSync.native(existing) : existing;
  return resolve(real, relative(existing, abs));
}

/** a is b, or a is inside b. */
function within(a: string, b: string): boolean {
  const rel = relative(b, a);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export interface OutDirOptions {
  /** Replace an existing export folder (only one that holds export files and nothing else). */
  force?: boolean;
  /** Folders and files the export must not be, sit inside or contain (the data home's runs/, models/, db...). */
  protectedPaths?: readonly string[];
}

/** Throws ExportError when writing an export to `outDir` could clobber something. Returns the absolute path. */
export function checkOutDir(outDir: string, opts: OutDirOptions = {}): string {
  if (typeof outDir !== 'string' || outDir.trim() === '') throw new ExportError('BAD_INPUT', 'an output folder is required');
  const out = canonical(outDir);
  for (const p of opts.protectedPaths ?? []) {
    const guarded = canonical(p);
    if (within(out, guarded))
      throw new ExportError(
        'OUT_DIR_PROTECTED',
        `${out} is inside ${guarded}, which the workbench manages; export somewhere else (e.g. the exports folder)`,
      );
    if (within(guarded, out))
      throw new ExportError('OUT_DIR_PROTECTED', `${out} contains ${guarded}, which the workbench manages; replacing it would delete that`);
  }
  if (!existsSync(out)) return out;
  if (!statSync(out).isDirectory()) throw new ExportError('OUT_DIR_NOT_A_FOLDER', `${out} exists and is not a folder`);
  const entries = readdirSync(out);
  if (entries.length === 0) return out;
  if (!opts.force)
    throw new ExportError(
      'OUT_DIR_NOT_EMPTY',
      `${out} is not empty; pick an empty or new folder, or pass --force to replace a previous export there`,
    );
  const foreign = entries.filter((e) => !isExportEntry(out, e));
  if (foreign.length > 0) {
    throw new ExportError(
      'OUT_DIR_FOREIGN_FILES',
      `${out} holds files an export does not write (${foreign.slice(0, 5).join(', ')}); --force only replaces a previous export`,
    );
  }
  return out;
}
