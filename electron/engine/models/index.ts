// Public API of engine/models: import Hugging Face models, list and load them, export to HF / ONNX / LoRA / GGUF.
export { ModelConvertError, configFromHfShape, hfShapeFromConfig, hfWeightsFromParams, paramsFromHfWeights } from './convert';
export { loraAdapters, mergeLora } from './lora';
export { modelNameProblem } from './names';
export { DEFAULT_MAX_IMPORT_BYTES, MANIFEST_FILE, ModelRegistryError, importModel, listModels, loadModel, removeModel } from './registry';
export { importGgufModel } from './gguf-import';
export type { ImportGgufOptions } from './gguf-import';
export type { ImportModelOptions, LoadedModel, ModelEntry, ModelRegistryErrorCode } from './registry';
export { EXPORT_FORMATS, LORA_BASE_DIR, exportModel } from './export';
export type { ExportFormat, ExportOptions, ExportResult, LoraBaseOptions } from './export';
export { LoraBaseError, loraBasePlan } from './lora-base';
export { EXPORT_FILE_PATTERNS, ExportError, checkOutDir } from './out-dir';
export type { ExportErrorCode, OutDirOptions } from './out-dir';
export { renderModelCard } from './model-card';
export type { ModelCard } from './model-card';
export { benchLlamaCpp, benchTokenizer, benchVsLlamaCpp } from './bench-llama';
export type { DecodeFigure, LlamaBenchOptions, LlamaBenchResult, LlamaCompareOptions, LlamaCompareRow } from './bench-llama';
export { loadRunCheckpoint, RunCheckpointError } from './run-checkpoint';
export type { RunCheckpointModel } from './run-checkpoint';
