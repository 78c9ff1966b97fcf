import { z } from 'zod';
import { Id, Step, Timestamp } from './common';
import { FolderName } from './folder-name';

/** An imported model's name: its folder under models/. */
export const ModelName = FolderName('a model name');
const FolderPath = z.string().min(1).max(4096);

export const ModelSummary = z.strictObject({
  name: ModelName,
  source: z.string(),
  importedAt: z.string(),
  architecture: z.string(),
  paramCount: z.number().int(),
  vocabSize: z.number().int(),
  dModel: z.number().int(),
  nLayers: z.number().int(),
});
export type ModelSummary = z.infer<typeof ModelSummary>;

export const ModelsListOutput = z.strictObject({ items: z.array(ModelSummary) });
/** A Hugging Face folder (hfDir) or a llama.cpp GGUF file (ggufFile): exactly one. */
export const ModelsImportInput = z
  .strictObject({ hfDir: FolderPath.optional(), ggufFile: FolderPath.optional(), name: ModelName.optional() })
  .refine((i) => (i.hfDir === undefined) !== (i.ggufFile === undefined), { message: 'give exactly one of hfDir (a Hugging Face folder) or ggufFile (a GGUF file)' });

export const ExportFormat = z.enum(['hf', 'onnx', 'lora', 'gguf', 'verl']);
export type ExportFormat = z.infer<typeof ExportFormat>;

export const LoraBaseChoice = z.enum(['auto', 'include', 'omit']);
export type LoraBaseChoice = z.infer<typeof LoraBaseChoice>;

/** Why a LoRA adapter cannot be exported from an imported model (it has none). */
export const LORA_FROM_MODEL = 'an imported model has no LoRA adapter; export it as a Hugging Face folder, ONNX or GGUF';

/**
 * Why a run has no LoRA adapter to export, or null when it trained with adapters (lora.rank > 0). A run
 * started from another's checkpoint (initFrom) carries that model, so only its checkpoint can tell.
 */
export function loraExportProblem(config: { lora: { rank: number }; initFrom?: unknown }): string | null {
  if (config.lora.rank > 0 || config.initFrom !== undefined) return null;
  return 'this run trained every weight (lora.rank 0), so it has no adapter to export; export it as a Hugging Face folder, ONNX or GGUF';
}

export const ExportsCreateInput = z.strictObject({
  source: z.union([z.strictObject({ run: Id, step: Step.optional() }), z.strictObject({ model: ModelName })]),
  format: ExportFormat,
  /** Destination folder; default a new folder under the data home's exports/. */
  outDir: FolderPath.optional(),
  ggufDtype: z.enum(['f32', 'f16']).default('f16'),
  /** Replace an earlier export in outDir (only folders holding nothing but export files). */
  force: z.boolean().default(false),
  /**
   * A LoRA export's base (the model the run trained on, found by the engine): written in base/ where training grew
   * its vocabulary by our role markers (auto: that grown base exists nowhere else), always (include), or never (omit).
   */
  loraBase: LoraBaseChoice.default('auto'),
});

export const ExportRecord = z.strictObject({
  id: z.number().int(),
  runId: Id.nullable(),
  model: z.string().nullable(),
  step: Step.nullable(),
  format: ExportFormat,
  outDir: z.string(),
  files: z.array(z.strictObject({ name: z.string(), bytes: z.number().int() })),
  /** How to load it with common tools. */
  loadSnippet: z.string(),
  /** What its user must know beyond the files, e.g. which base a LoRA adapter applies to (from exports.create; the README keeps it). */
  notes: z.array(z.string()).optional(),
  createdAt: Timestamp,
});
export type ExportRecord = z.infer<typeof ExportRecord>;
export const ExportsListOutput = z.strictObject({ items: z.array(ExportRecord) });
