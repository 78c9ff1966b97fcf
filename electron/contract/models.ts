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

/** OWNER/NAME or OWNER/NAME@REVISION on the Hugging Face Hub (checked in full by the engine's Hub client). */
export const HubModelRef = z.string().min(3).max(400);
/** The caller's tag for a pull's progress events (a GUI panel tells its own pull from another's). */
export const PullId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a pull id is 1–64 letters, digits, "_" or "-"');

/**
 * Pull a model from the Hub (HF_ENDPOINT, default https://huggingface.co; HF_TOKEN for gated repos, read by the
 * engine from its own environment, never sent over the contract) into the data home's cache, then import it.
 */
export const ModelsPullInput = z.strictObject({
  repo: HubModelRef,
  /** Default: the repo's NAME. */
  name: ModelName.optional(),
  /** Use only the cache, never the network (HF_HUB_OFFLINE=1 does the same). */
  offline: z.boolean().default(false),
  pullId: PullId.optional(),
});
export const ModelsPullOutput = z.strictObject({
  model: ModelSummary,
  pullId: PullId,
  repo: z.string(),
  revision: z.string(),
  /** The commit the revision named when pulled (the cache key). */
  commit: z.string(),
  /** True when nothing was downloaded. */
  fromCache: z.boolean(),
  downloadedBytes: z.number().int().nonnegative(),
  totalBytes: z.number().int().nonnegative(),
  files: z.array(z.string()),
  /** Why the cache was used without the Hub (offline, unreachable). */
  note: z.string().nullable(),
});
export type ModelsPullOutput = z.infer<typeof ModelsPullOutput>;

export const ModelsSearchInput = z.strictObject({ query: z.string().trim().min(1).max(100), limit: z.number().int().min(1).max(50).default(20) });
export const HubSearchHit = z.strictObject({
  id: z.string(),
  downloads: z.number(),
  likes: z.number(),
  gated: z.boolean(),
  pipelineTag: z.string().nullable(),
  lastModified: z.string().nullable(),
});
export type HubSearchHit = z.infer<typeof HubSearchHit>;
/** Text-generation models with safetensors weights, most downloaded first. */
export const ModelsSearchOutput = z.strictObject({ endpoint: z.string(), items: z.array(HubSearchHit) });

export const PullPhase = z.enum(['resolving', 'downloading', 'importing', 'done']);
export const ModelsPullProgress = z.strictObject({
  pullId: PullId,
  repo: z.string(),
  phase: PullPhase,
  /** The file moving now (downloading). */
  file: z.string().nullable(),
  doneBytes: z.number().int().nonnegative(),
  totalBytes: z.number().int().nonnegative(),
  /** 0..1, null until the tree's sizes are known. */
  fraction: z.number().min(0).max(1).nullable(),
  etaMs: z.number().nullable(),
});
export type ModelsPullProgress = z.infer<typeof ModelsPullProgress>;

export const ExportFormat = z.enum(['hf', 'onnx', 'lora', 'gguf', 'verl']);
export type ExportFormat = z.infer<typeof ExportFormat>;

/**
 * What a GGUF export stores its matrices as: f32 (exact), f16 (half the size), q8_0 (llama.cpp's 8-bit blocks, a
 * quarter plus a scale per 32 weights). Norms and biases stay f32 in every one, as llama.cpp's converter keeps them.
 */
export const GgufDtype = z.enum(['f32', 'f16', 'q8_0']);
export type GgufDtype = z.infer<typeof GgufDtype>;

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
  ggufDtype: GgufDtype.default('f16'),
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
