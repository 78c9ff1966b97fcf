// ONNX model folders in the layout Hugging Face Optimum writes and transformers.js loads
// (`AutoModelForCausalLM.from_pretrained(dir)`): `onnx/model.onnx` (+ `onnx/model.onnx_data` when the
// weights outgrow one protobuf) beside the files of an HF folder, with Optimum's input, output and
// dimension names (`text-generation-with-past`).

import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import { eliminateDeadCode } from '../graph/passes';
import { toModelProto } from '../graph/serialize';
import type { ModelConfig } from '../transformer/config';
import { buildOnnxExportGraph } from '../transformer/graphs';
import { writeDirAtomicSync } from './atomic';
import type { HfExportInput } from './hf-folder';
import { writeHfSidecars } from './hf-folder';

const { onnx } = onnxProto;

export const ONNX_SUBFOLDER = 'onnx';
export const ONNX_MODEL_FILE = 'model.onnx';
/** Optimum's and transformers.js's name for the weights of `model.onnx` stored beside it. */
export const ONNX_DATA_FILE = 'model.onnx_data';

/**
 * A ModelProto is one protobuf message and cannot exceed 2 GiB; past this many initialiser bytes the
 * weights go to the external data file (the rest of the graph is well under the margin).
 */
export const MAX_EMBEDDED_WEIGHT_BYTES = 2 ** 31 - 64 * 1024 ** 2;

/** Our symbolic dims → the names Optimum gives them; a dim not listed here is a bug in the graph. */
export const OPTIMUM_DIM_NAMES: Readonly<Record<string, string>> = {
  B: 'batch_size',
  T: 'sequence_length',
  P: 'past_sequence_length',
  'P+T': 'past_sequence_length + sequence_length',
};

/** What special_tokens_map.json carries, copied from tokenizer_config.json. */
const SPECIAL_TOKEN_KEYS = ['bos_token', 'eos_token', 'unk_token', 'pad_token', 'additional_special_tokens'] as const;

export interface OnnxFolderInput extends Omit<HfExportInput, 'weights' | 'torchDtype'> {
  /** The model's config without LoRA (merge adapters first) and its parameters by Hugging Face name. */
  config: ModelConfig;
  weights: ReadonlyMap<string, Float32Array>;
  /** Initialiser bytes above which the weights go to `onnx/model.onnx_data` (tests lower it). */
  externalDataAbove?: number;
}

/**
 * Write an Optimum-layout ONNX folder into `dir` (atomically): `onnx/model.onnx` with the weights as
 * initialisers (in `onnx/model.onnx_data` past 2 GiB), config.json, generation_config.json,
 * tokenizer.json, tokenizer_config.json, special_tokens_map.json and README.md.
 */
export function exportOnnxFolder(dir: string, input: OnnxFolderInput): void {
  const graph = buildOnnxExportGraph(input.config, input.weights);
  eliminateDeadCode(graph);
  const model = toModelProto(graph);
  renameDims(model);
  const initialisers = model.graph!.initializer!;
  const weightBytes = initialisers.reduce((n, t) => n + t.rawData!.byteLength, 0);
  const external = weightBytes > (input.externalDataAbove ?? MAX_EMBEDDED_WEIGHT_BYTES);
  writeDirAtomicSync(dir, (tmp) => {
    writeHfSidecars(tmp, input);
    writeSpecialTokensMap(tmp);
    if (external) markExternalData(tmp);
    const sub = join(tmp, ONNX_SUBFOLDER);
    mkdirSync(sub);
    if (external) moveToExternalData(initialisers, join(sub, ONNX_DATA_FILE));
    writeFileSync(join(sub, ONNX_MODEL_FILE), onnx.ModelProto.encode(onnx.ModelProto.create(model)).finish());
  });
}

/** Gives the graph's inputs and outputs Optimum's dim names, which loaders and users read. */
function renameDims(model: onnxProto.onnx.IModelProto): void {
  for (const v of [...model.graph!.input!, ...model.graph!.output!]) {
    for (const d of v.type!.tensorType!.shape!.dim!) {
      if (!d.dimParam) continue;
      const name = OPTIMUM_DIM_NAMES[d.dimParam];
      if (name === undefined) throw new Error(`ONNX export: ${v.name} has dim '${d.dimParam}', which has no Optimum name`);
      d.dimParam = name;
    }
  }
}

/**
 * Initialisers under this many bytes stay in the model file, as with the `onnx` package's default
 * size threshold: ORT's shape inference reads small constants (axes, shapes) and cannot read them from
 * external data.
 */
const EXTERNAL_MIN_BYTES = 1024;

/**
 * Moves the weights' bytes into one file and points each tensor at its slice (ONNX's external
 * data: location / offset / length, relative to the model file). Offsets are 64-byte aligned, as the
 * `onnx` package aligns them, so a loader that maps the file can view each tensor in place.
 */
function moveToExternalData(initialisers: onnxProto.onnx.ITensorProto[], path: string): void {
  const fd = openSync(path, 'w');
  try {
    let offset = 0;
    for (const t of initialisers) {
      if (t.rawData!.byteLength < EXTERNAL_MIN_BYTES) continue;
      const padding = (64 - (offset % 64)) % 64;
      if (padding > 0) writeSync(fd, new Uint8Array(padding));
      offset += padding;
      const bytes = t.rawData!;
      writeSync(fd, bytes);
      t.externalData = [
        { key: 'location', value: ONNX_DATA_FILE },
        { key: 'offset', value: String(offset) },
        { key: 'length', value: String(bytes.byteLength) },
      ];
      t.dataLocation = onnx.TensorProto.DataLocation.EXTERNAL;
      t.rawData = undefined;
      offset += bytes.byteLength;
    }
  } finally {
    closeSync(fd);
  }
}

/** transformers.js fetches `model.onnx_data` only when config.json says the model has one. */
function markExternalData(dir: string): void {
  const path = join(dir, 'config.json');
  const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  config['transformers.js_config'] = { use_external_data_format: { [ONNX_MODEL_FILE]: 1 } };
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
}

/** special_tokens_map.json, which Optimum writes beside the tokenizer: the roles tokenizer_config.json names. */
function writeSpecialTokensMap(dir: string): void {
  const config = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
  const map = Object.fromEntries(SPECIAL_TOKEN_KEYS.filter((k) => config[k] !== undefined && config[k] !== null).map((k) => [k, config[k]]));
  writeFileSync(join(dir, 'special_tokens_map.json'), `${JSON.stringify(map, null, 2)}\n`);
}
