// Exports of a model (ours or imported) to the formats other tools load: a Hugging Face folder, an
// ONNX model with a KV cache in Optimum's layout (transformers.js), a PEFT LoRA adapter, GGUF for llama.cpp,
// and a run carried to verl (verl/export.ts: the HF folder plus the task set and configs). Every export fills
// a temp folder and swaps it in whole (native-models/io/atomic), after checking the destination is safe.

import { readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AtomicWriteError,
  type GgufExportDtype,
  type ModelConfig,
  type Params,
  type TensorMap,
  type TextTokenizer,
  exportHfFolder,
  exportLoraAdapter,
  exportOnnxFolder,
  hfToGguf,
  writeDirAtomic,
  writeGguf,
} from '../../../native-models';
import { GgufDtype } from '../../contract';
import { hfShapeFromConfig, hfWeightsFromParams } from './convert';
import { loraAdapters, loraBase, mergeLora } from './lora';
import { type ModelCard, renderModelCard } from './model-card';
import { ExportError, type OutDirOptions, checkOutDir } from './out-dir';
import { VERL_FILES, type VerlRun, verlProblem, writeVerlFiles } from './verl/export';

export const EXPORT_FORMATS = ['hf', 'onnx', 'lora', 'gguf', 'verl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportOptions extends OutDirOptions {
  config: ModelConfig;
  /** Every parameter of `config` by Hugging Face name (LoRA adapters included when the config has them). */
  weights: Params;
  tokenizer: TextTokenizer;
  format: ExportFormat;
  outDir: string;
  card?: ModelCard;
  /** Name recorded in GGUF metadata. */
  name?: string;
  /** LoRA export: the base the adapters apply to. */
  lora?: LoraBaseOptions;
  /** GGUF export: how matrices are stored (norms and biases stay f32). Default f32. */
  ggufDtype?: GgufDtype;
  /** verl export: the run (config, env, tasks) the folder carries; a verl export needs one. */
  verl?: VerlRun;
}

/** The GGUF writer's name for each export dtype. */
const GGUF_TYPE = { f32: 'F32', f16: 'F16', q8_0: 'Q8_0' } as const satisfies Record<GgufDtype, GgufExportDtype>;

/** Where a LoRA adapter's base is, and what the export says about it. */
export interface LoraBaseOptions {
  /** Where the base lives (hub id or path), written into adapter_config.json; unused with `writeBase`. */
  baseModel?: string;
  /**
   * Write the base itself in base/ as a Hugging Face folder (the config without adapters, the frozen weights, the
   * tokenizer), which adapter_config.json then names: the one copy of a base whose vocabulary training grew.
   */
  writeBase?: boolean;
  /** Sentences for the README's "Base model" section (and base/README.md): which base this is and why. */
  notes?: readonly string[];
}

/** The folder of a LoRA export that holds the base the adapter applies to. */
export const LORA_BASE_DIR = 'base';

export interface ExportResult {
  format: ExportFormat;
  outDir: string;
  files: { name: string; bytes: number }[];
}

/** Run an exporter that writes its own atomic folder into `tmp/.stage`, then lift its files into `tmp`. */
function lift(tmp: string, write: (stage: string) => void): void {
  const stage = join(tmp, '.stage');
  write(stage);
  for (const f of readdirSync(stage)) renameSync(join(stage, f), join(tmp, f));
  rmSync(stage, { recursive: true });
}

function tokenIds(t: TextTokenizer) {
  return { bosTokenId: t.bosTokenId, eosTokenId: t.eosTokenId, padTokenId: t.padTokenId };
}

/** Everything an export writes, checked before the first byte is. */
interface Prepared {
  /** Without LoRA for full-weight formats (adapters merged); as given for the LoRA format. */
  config: ModelConfig;
  params: Params;
  hfWeights: TensorMap;
  card: string;
  /** LoRA with `writeBase`: the base written in base/. */
  base?: { config: ModelConfig; hfWeights: TensorMap };
}

function prepare(o: ExportOptions): Prepared {
  if (!(EXPORT_FORMATS as readonly string[]).includes(o.format))
    throw new ExportError('BAD_INPUT', `unknown export format ${JSON.stringify(o.format)} (known: ${EXPORT_FORMATS.join(', ')})`);
  if (o.ggufDtype !== undefined && !GgufDtype.options.includes(o.ggufDtype))
    throw new ExportError('BAD_INPUT', `ggufDtype must be one of ${GgufDtype.options.join(', ')}, got ${JSON.stringify(o.ggufDtype)}`);
  if (o.tokenizer.vocabSize > o.config.vocabSize)
    throw new ExportError('BAD_INPUT', `the tokenizer has ${o.tokenizer.vocabSize} tokens but the model's vocabulary is ${o.config.vocabSize}`);
  if (o.format === 'lora') {
    if (!o.config.lora)
      throw new ExportError('NO_LORA', 'this model has no LoRA adapters (it was not trained with LoRA); export it as hf, onnx or gguf instead');
    if (!o.lora?.writeBase && !baseModelOf(o))
      throw new ExportError('BAD_INPUT', 'a LoRA export needs the base model it applies to (lora.baseModel: hub id or path, or lora.writeBase)');
  }
  if (o.format === 'verl') {
    if (!o.verl) throw new ExportError('BAD_INPUT', 'a verl export carries a run (its env, tasks and knobs): export one with --run ID');
    const problem = verlProblem(o.verl);
    if (problem) throw new ExportError('BAD_INPUT', problem);
  }
  // Full-weight formats carry the adapters folded in; the LoRA format carries only the adapters.
  const { config, params } = o.format === 'lora' ? { config: o.config, params: o.weights } : mergeLora(o.config, o.weights);
  const hfWeights = hfWeightsFromParams(config, params); // every parameter present and sized
  const card = renderModelCard(o.card, { format: o.format, config, mergedLora: o.format !== 'lora' && o.config.lora !== undefined });
  if (o.format !== 'lora' || !o.lora?.writeBase) return { config, params, hfWeights, card };
  const base = loraBase(config, params);
  return { config, params, hfWeights, card, base: { config: base.config, hfWeights: hfWeightsFromParams(base.config, base.params) } };
}

const baseModelOf = (o: ExportOptions) => o.lora?.baseModel ?? o.card?.baseModel;

/** A README's section on the base a LoRA adapter applies to (empty without notes). */
const baseSection = (notes: readonly string[] | undefined) => (notes?.length ? `\n## Base model\n\n${notes.join('\n\n')}\n` : '');

const hfFolder = (dir: string, o: ExportOptions, p: Prepared) =>
  exportHfFolder(dir, { shape: hfShapeFromConfig(p.config), weights: p.hfWeights, tokenizer: o.tokenizer, modelCard: p.card });

/** Writers get `outDir` absolute (a verl export names its own files in its configs). */
const WRITERS: Record<ExportFormat, (tmp: string, o: ExportOptions & { outDir: string }, p: Prepared) => void> = {
  hf: (tmp, o, p) => lift(tmp, (stage) => hfFolder(stage, o, p)),

  // Optimum's layout (onnx/model.onnx beside the HF files), so transformers.js and Optimum load it.
  onnx: (tmp, o, p) =>
    lift(tmp, (stage) =>
      exportOnnxFolder(stage, { config: p.config, weights: p.params, shape: hfShapeFromConfig(p.config), tokenizer: o.tokenizer, modelCard: p.card }),
    ),

  // The adapter (PEFT layout) and, with writeBase, the base it applies to in base/ (named in adapter_config.json).
  lora: (tmp, o, p) => {
    const lora = p.config.lora!;
    const adapters = loraAdapters(p.config, p.params);
    const input = {
      shape: hfShapeFromConfig(p.config),
      adapters,
      rank: lora.rank,
      alpha: lora.alpha,
      targets: lora.targets,
      baseModel: p.base ? join(o.outDir, LORA_BASE_DIR) : baseModelOf(o)!,
    };
    lift(tmp, (stage) => exportLoraAdapter(stage, input));
    const notes = baseSection(o.lora?.notes);
    writeFileSync(join(tmp, 'README.md'), p.card + notes);
    if (p.base) {
      const card = renderModelCard(undefined, { format: 'hf', config: p.base.config, mergedLora: false }) + notes;
      exportHfFolder(join(tmp, LORA_BASE_DIR), { shape: hfShapeFromConfig(p.base.config), weights: p.base.hfWeights, tokenizer: o.tokenizer, modelCard: card });
    }
  },

  gguf: (tmp, o, p) => {
    const dtype = o.ggufDtype ?? 'f32';
    const t = o.tokenizer;
    const file = hfToGguf({
      shape: hfShapeFromConfig(p.config),
      weights: p.hfWeights,
      tokenizer: { json: t.json, chatTemplate: t.chatTemplate, ...tokenIds(t) },
      name: o.name ?? o.card?.run,
      dtype: GGUF_TYPE[dtype],
    });
    writeGguf(join(tmp, `model-${dtype}.gguf`), file);
    writeFileSync(join(tmp, 'README.md'), p.card);
  },

  // The starting weights are the HF export, in model/; verl loads them by path (actor_rollout_ref.model.path).
  verl: (tmp, o, p) => {
    hfFolder(join(tmp, VERL_FILES.model), o, p);
    writeVerlFiles(tmp, o.outDir, o.verl!, o.tokenizer, p.config.maxSeqLen);
  },
};

/** Write `o.weights` in `o.format` to `o.outDir` (created or, with force, replaced whole). */
export async function exportModel(o: ExportOptions): Promise<ExportResult> {
  const prepared = prepare(o);
  const outDir = checkOutDir(o.outDir, o);
  await writeDirAtomic(outDir, (tmp) => WRITERS[o.format](tmp, { ...o, outDir }, prepared)).catch((e: unknown) => {
    // The atomic writer wraps what the fill threw; callers get the typed error itself.
    throw e instanceof AtomicWriteError && e.cause instanceof Error ? e.cause : e;
  });
  return { format: o.format, outDir, files: listFiles(outDir) };
}

/** Every file under `dir` by relative path (`onnx/model.onnx`), in code-unit order. */
function listFiles(dir: string, prefix = ''): { name: string; bytes: number }[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => {
      const name = prefix ? `${prefix}/${e.name}` : e.name;
      return e.isDirectory() ? listFiles(dir, name) : [{ name, bytes: statSync(join(dir, name)).size }];
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export { ExportError };
