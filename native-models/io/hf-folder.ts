// Hugging Face model folders in and out: import (config.json + safetensors + tokenizer, validated against
// each other before use) and export (the same files, written atomically), plus PEFT LoRA adapters.

import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeDirAtomicSync } from './atomic';
import type { HostTensor } from './dtype';
import { float32ToBf16, float32ToF16 } from './half';
import { type GenerationDefaults, HfConfigError, type HfModelShape, readHfConfig, writeHfConfig } from './hf-config';
import { type LoraTarget, checkHfWeights, expectedLoraTensors, hfParameterCount } from './hf-tensors';
import { type TensorMap, writeSafetensors } from './safetensors';
import { hfWeightFiles, readHfWeights } from './sharded';
import { checkTensorsAgainstSpec, describeProblems } from './tensor-spec';

export interface HfModel {
  shape: HfModelShape;
  /** HF names; F16 / BF16 checkpoints are widened to F32. */
  weights: TensorMap;
}

/** Fewest bytes a parameter takes in a checkpoint this module imports (F16 / BF16). */
const MIN_BYTES_PER_PARAM = 2;

/**
 * The config's parameter count against the bytes of the weight files, before any weight is read or
 * the config's tensor list built: a config that claims more than the files can hold is refused at once.
 */
function checkConfigAgainstFiles(dir: string, shape: HfModelShape): void {
  const files = hfWeightFiles(dir);
  // A missing shard is reported by the read, which names it.
  if (!files.every((f) => existsSync(f))) return;
  const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
  const params = hfParameterCount(shape);
  if (params * MIN_BYTES_PER_PARAM > bytes) {
    throw new HfConfigError(
      'BAD_VALUE',
      `${dir}: config.json describes ${params} parameters (num_hidden_layers ${shape.nLayers}, hidden_size ${shape.dModel}, intermediate_size ${shape.dFf}, vocab_size ${shape.vocabSize}), ` +
        `at least ${params * MIN_BYTES_PER_PARAM} bytes, but the weight files hold ${bytes}`,
    );
  }
}

/** Read and cross-check a model folder: the weights must be exactly what config.json describes. */
export function importHfModel(dir: string): HfModel {
  const shape = readHfConfig(dir);
  checkConfigAgainstFiles(dir, shape);
  const { tensors } = readHfWeights(dir, { halfToFloat32: true });
  const problems = checkHfWeights(tensors, shape);
  if (problems.length > 0) throw new HfConfigError('BAD_VALUE', `${dir}: weights do not match config.json: ${describeProblems(problems)}`);
  if (shape.tiedEmbeddings) tensors.delete('lm_head.weight');
  for (const name of [...tensors.keys()]) if (name.endsWith('.rotary_emb.inv_freq')) tensors.delete(name);
  for (const [name, t] of tensors) {
    if (t.dtype !== 'F32') throw new HfConfigError('UNSUPPORTED', `${dir}: safetensors tensor "${name}" is ${t.dtype}; only float checkpoints are supported`);
  }
  return { shape, weights: tensors };
}

/** What an export needs from a tokenizer (TextTokenizer satisfies it). */
export interface ExportableTokenizer {
  save(dir: string, opts?: { modelMaxLength?: number }): void;
  bosTokenId?: number;
  eosTokenId?: number;
  padTokenId?: number;
}

export interface HfExportInput {
  shape: HfModelShape;
  weights: ReadonlyMap<string, HostTensor>;
  tokenizer: ExportableTokenizer;
  /** README.md model card (what was trained, how, with which results). */
  modelCard: string;
  torchDtype?: 'float32' | 'float16' | 'bfloat16';
  generation?: GenerationDefaults;
}

function storedAs(t: HostTensor, torchDtype: HfExportInput['torchDtype']): HostTensor {
  if (t.dtype !== 'F32' || torchDtype === undefined || torchDtype === 'float32') return t;
  const data = t.data as Float32Array;
  return torchDtype === 'float16' ? { dtype: 'F16', shape: t.shape, data: float32ToF16(data) } : { dtype: 'BF16', shape: t.shape, data: float32ToBf16(data) };
}

/** Write config.json, generation_config.json, model.safetensors, tokenizer files and README.md into `dir`. */
export function exportHfFolder(dir: string, input: HfExportInput): void {
  const problems = checkHfWeights(input.weights, input.shape);
  if (problems.length > 0) throw new HfConfigError('BAD_VALUE', `weights do not match the model shape: ${describeProblems(problems)}`);
  const weights = new Map([...input.weights].map(([name, t]) => [name, storedAs(t, input.torchDtype)]));
  writeDirAtomicSync(dir, (tmp) => {
    writeHfSidecars(tmp, input);
    writeSafetensors(join(tmp, 'model.safetensors'), weights, { format: 'pt' });
  });
}

/**
 * Every file of a model folder but the weights: config.json, generation_config.json, tokenizer.json,
 * tokenizer_config.json and README.md. Shared by the folders whose weights take another form (ONNX).
 */
export function writeHfSidecars(dir: string, input: Omit<HfExportInput, 'weights'>): void {
  const ids = { bosTokenId: input.tokenizer.bosTokenId, eosTokenId: input.tokenizer.eosTokenId, padTokenId: input.tokenizer.padTokenId };
  writeHfConfig(dir, input.shape, { ...ids, ...input.generation, torchDtype: input.torchDtype ?? 'float32' });
  input.tokenizer.save(dir, { modelMaxLength: input.shape.maxSeqLen });
  writeFileSync(join(dir, 'README.md'), input.modelCard);
}

export interface LoraExportInput {
  shape: HfModelShape;
  /** Adapter tensors named `model.layers.{i}.<module>.lora_A.weight` / `lora_B.weight`. */
  adapters: ReadonlyMap<string, HostTensor>;
  rank: number;
  alpha: number;
  targets: readonly LoraTarget[];
  /** Where the base model lives (hub id or path), recorded for loaders. */
  baseModel: string;
}

/** PEFT layout: adapter_config.json + adapter_model.safetensors with `base_model.model.` names. */
export function exportLoraAdapter(dir: string, input: LoraExportInput): void {
  const spec = expectedLoraTensors(input.shape, { rank: input.rank, targets: input.targets, prefix: '' });
  const problems = checkTensorsAgainstSpec(input.adapters, spec);
  if (problems.length > 0) throw new HfConfigError('BAD_VALUE', `LoRA tensors do not match rank ${input.rank} on ${input.targets.join(', ')}: ${describeProblems(problems)}`);
  const config = {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: input.baseModel,
    r: input.rank,
    lora_alpha: input.alpha,
    lora_dropout: 0,
    target_modules: [...input.targets],
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    modules_to_save: null,
    use_rslora: false,
    use_dora: false,
  };
  const tensors = new Map([...input.adapters].map(([name, t]) => [`base_model.model.${name}`, t]));
  writeDirAtomicSync(dir, (tmp) => {
    writeFileSync(join(tmp, 'adapter_config.json'), `${JSON.stringify(config, null, 2)}\n`);
    writeSafetensors(join(tmp, 'adapter_model.safetensors'), tensors, { format: 'pt' });
  });
}

/** True when `dir` looks like a Hugging Face model folder this module can import. */
export function isHfModelFolder(dir: string): boolean {
  return existsSync(join(dir, 'config.json')) && (existsSync(join(dir, 'model.safetensors')) || existsSync(join(dir, 'model.safetensors.index.json')));
}
