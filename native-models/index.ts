// Public API of native-models: re-exports only.
export { Graph, Tensor } from './graph/builder';
export type { NodeDef, Initializer, GraphOutput } from './graph/builder';
export * as ops from './graph/functional';
export { OPS, OPSET } from './graph/ops';
export type { OpType } from './graph/ops';
export { GraphError } from './graph/types';
export type { DType, Dim, Shape } from './graph/types';
export { verifyGraph } from './graph/verify';
export { toOnnxBytes, opHistogram } from './graph/serialize';
export { compileGraph, eliminateDeadCode, dumpStage } from './graph/passes';
export { grad } from './graph/autodiff/grad';
export { RULES, NON_DIFFERENTIABLE } from './graph/autodiff/rules';

export { createSession, availableProviders } from './runtime/session';
export type { Provider, ProviderChoice, ProviderReport, SessionOptions, CompiledSession } from './runtime/session';
export { Generator, GenerateError } from './runtime/generate';
export type { KvCacheMode } from './runtime/generate';
export type { GenerateOptions, Generation } from './runtime/generate';
export { sampleToken, seededRandom } from './runtime/sampling';
export type { SamplingParams } from './runtime/sampling';

export { defaultConfig, resolveConfig, parseOverrides, paramSpecs, countParams, headDim, ConfigError, LORA_TARGETS, ModelConfigSchema } from './transformer/config';
export type { ModelConfig, LoraConfig, LoraTarget, ParamSpec } from './transformer/config';
export { PRESETS, preset } from './presets';
export type { PresetName } from './presets';
export { initParams } from './transformer/init';
export type { Params } from './transformer/init';
export { growVocabulary } from './transformer/vocab';
export { buildModel } from './transformer/model';
export { buildLogprobsGraph, buildTrainStepGraph, buildOptimizerGraph, buildDecodeGraph, buildResidentDecodeGraph, gradName } from './transformer/graphs';
export type { ObjectiveConfig } from './transformer/graphs';
export type { Aggregation, KlEstimator } from './transformer/losses';

export { Trainer, TrainerError, defaultOptimizer, defaultKnobs } from './trainer';
export type { TrainerOptions, OptimizerConfig, LossKnobs, StepStats, TrainerState } from './trainer';
export { lrAt } from './training/schedule';
export type { Schedule } from './training/schedule';
export { packBatch, BatchError } from './training/batch';
export { benchTrain, benchTrainConfig, measureGemmPeak, trainFlopsPerToken } from './bench/train';
export { BENCH_SHAPES } from './bench/shapes';
export type { BenchShapeName } from './bench/shapes';
export type { TrainBenchOptions, TrainBenchResult } from './bench/train';
export { benchGenerate, benchTurns } from './bench/generate';
export type { GenerateBenchOptions, GenerateBenchResult, TurnsBenchResult } from './bench/generate';
export type { TrainBatch } from './training/batch';
export { worldModelWeights } from './training/world-model-weights';
export type { ObservationSpan } from './training/world-model-weights';

export * from './io';
export * from './tokenizer';
