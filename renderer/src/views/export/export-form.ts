import { LORA_FROM_MODEL, loraExportProblem, type ExportFormat, type ExportRecord, type GgufDtype, type LoraBaseChoice, type MethodInput, type Run } from '../../../../electron/contract';

/** The Export view's pure parts: what each format writes, the destination folder, the request. */

export const formatInfo: Record<ExportFormat, { label: string; writes: string }> = {
  hf: { label: 'Hugging Face folder', writes: 'config.json, safetensors weights, tokenizer files and a model card — loads with transformers' },
  onnx: { label: 'ONNX', writes: 'model.onnx with a KV cache — runs in onnxruntime anywhere' },
  lora: {
    label: 'LoRA adapter',
    writes:
      'the trained low-rank adapter (PEFT layout) and the base it applies to: the model the run trained on, in base/ where training added rows for the role markers to its vocabulary (then the folder it was imported from does not fit the adapter)',
  },
  gguf: { label: 'GGUF', writes: 'one .gguf file — runs in llama.cpp and Ollama' },
  verl: {
    label: 'verl',
    writes:
      "a folder verl's multi-turn agent loop trains from (runs only): the weights as a Hugging Face folder, the task set as parquet, tool and GRPO configs over envace mcp serve, a reward function and a README with the launch command",
  },
};

export type ExportSource = { kind: 'run'; runId: string; step: number | null } | { kind: 'model'; model: string };

/** The folder a person typed must be one name, so it lands directly in the data home's exports/. */
const FOLDER_NAME = /^[A-Za-z0-9._-]{1,128}$/;

export type Destination = { ok: true; outDir: string | undefined } | { ok: false; issue: string };

/** The separator the engine's paths use (the data home comes from the engine, maybe on Windows). */
function separatorOf(home: string): string {
  return home.includes('\\') && !home.includes('/') ? '\\' : '/';
}

/** The exports folder inside the data home, spelled the way the engine spells paths. */
export function exportsFolder(dataHome: string): string {
  const sep = separatorOf(dataHome);
  return `${dataHome.replace(/[\\/]+$/, '')}${sep}exports`;
}

/**
 * Empty → undefined (the engine picks a new folder under exports/); a name → that folder inside
 * exports/. Anything that could leave exports/ (separators, "..") is refused here, before the
 * engine refuses it too.
 */
export function resolveDestination(dataHome: string, folderName: string): Destination {
  const name = folderName.trim();
  if (name === '') return { ok: true, outDir: undefined };
  if (name === '.' || name === '..' || !FOLDER_NAME.test(name)) {
    return { ok: false, issue: 'use one folder name of letters, digits and . _ - (no slashes); it is created inside the exports folder' };
  }
  return { ok: true, outDir: `${exportsFolder(dataHome)}${separatorOf(dataHome)}${name}` };
}

/**
 * Why a format cannot be written from this source, or null when it can. Only a run trained with
 * LoRA adapters (lora.rank > 0) has an adapter to export; imported models and full fine-tunes have
 * none, and the engine would refuse after the person pressed Export.
 */
export function formatUnavailable(format: ExportFormat, source: ExportSource | null, runs: Run[]): string | null {
  // A verl folder carries a run's env, tasks and knobs; an imported model has none of them.
  if (format === 'verl') return source?.kind === 'model' ? 'a verl export is made from a run (its environment, tasks and knobs); pick a run' : null;
  if (format !== 'lora') return null;
  if (source?.kind === 'model') return LORA_FROM_MODEL;
  const run = source ? runs.find((r) => r.id === source.runId) : undefined;
  return run ? loraExportProblem(run.config) : null;
}

/** Runs that can be exported: those with at least one checkpoint. */
export function exportableRuns(runs: Run[]): Run[] {
  return runs.filter((r) => r.checkpoints.length > 0);
}

/** A LoRA export's choices for its base, as the form offers them. */
export const loraBaseChoices: Record<LoraBaseChoice, string> = {
  auto: 'in base/ where training grew its vocabulary (the adapter needs that base)',
  include: 'always in base/ (a folder that loads on its own)',
  omit: 'never (an earlier export of this run has it in base/)',
};

export function buildExportInput(
  source: ExportSource,
  format: ExportFormat,
  outDir: string | undefined,
  ggufDtype: GgufDtype,
  force: boolean,
  loraBase: LoraBaseChoice = 'auto',
): MethodInput<'exports.create'> {
  const from = source.kind === 'run' ? { run: source.runId, ...(source.step === null ? {} : { step: source.step }) } : { model: source.model };
  return { source: from, format, ...(outDir ? { outDir } : {}), ...(format === 'gguf' ? { ggufDtype } : {}), ...(format === 'lora' ? { loraBase } : {}), force };
}

export function totalBytes(files: ExportRecord['files']): number {
  return files.reduce((sum, f) => sum + f.bytes, 0);
}

/** "run-1 · step 3" or "model qwen-tiny": where an export came from, for the list. */
export function describeExportSource(record: Pick<ExportRecord, 'runId' | 'step' | 'model'>): string {
  if (record.runId) return `run ${record.runId}${record.step === null ? '' : ` · step ${record.step}`}`;
  return `model ${record.model ?? '—'}`;
}
