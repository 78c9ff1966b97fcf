// Hugging Face model shape ⇄ our transformer's ModelConfig, and HF weight maps ⇄ our parameter maps.
// The two describe the same Llama-family decoder with different spellings; the only real difference is
// `headDim`, which HF always states and our config leaves out when it is dModel / nHeads.

import {
  ConfigError,
  type HfModelShape,
  type HostTensor,
  type ModelConfig,
  type Params,
  type TensorMap,
  headDim,
  paramSpecs,
  resolveConfig,
} from '../../../native-models';

export class ModelConvertError extends Error {
  override readonly name = 'ModelConvertError';
}

/** Our config for an HF model shape (no LoRA: imported models are full-weight bases). */
export function configFromHfShape(shape: HfModelShape): ModelConfig {
  const derivedHeadDim = shape.dModel / shape.nHeads;
  try {
    return resolveConfig({
      vocabSize: shape.vocabSize,
      dModel: shape.dModel,
      nLayers: shape.nLayers,
      nHeads: shape.nHeads,
      nKvHeads: shape.nKvHeads,
      ...(shape.headDim === derivedHeadDim ? {} : { headDim: shape.headDim }),
      dFf: shape.dFf,
      ropeTheta: shape.ropeTheta,
      normEps: shape.normEps,
      tiedEmbeddings: shape.tiedEmbeddings,
      qkvBias: shape.qkvBias,
      qkNorm: shape.qkNorm,
      maxSeqLen: shape.maxSeqLen,
    });
  } catch (e) {
    if (e instanceof ConfigError) throw new ModelConvertError(`this Hugging Face model cannot run on our transformer: ${e.message}`);
    throw e;
  }
}

/** The HF shape of a config. A LoRA section is not part of the shape: adapters are merged or exported apart. */
export function hfShapeFromConfig(config: ModelConfig): HfModelShape {
  return {
    vocabSize: config.vocabSize,
    dModel: config.dModel,
    nLayers: config.nLayers,
    nHeads: config.nHeads,
    nKvHeads: config.nKvHeads,
    dFf: config.dFf,
    ropeTheta: config.ropeTheta,
    normEps: config.normEps,
    tiedEmbeddings: config.tiedEmbeddings,
    qkvBias: config.qkvBias,
    qkNorm: config.qkNorm,
    maxSeqLen: config.maxSeqLen,
    headDim: headDim(config),
  };
}

const sameShape = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((d, i) => d === b[i]);

/**
 * Our parameter map from HF-named F32 tensors: every parameter of `config` must be present with its exact
 * shape, and nothing else may be. The arrays are shared, not copied.
 */
export function paramsFromHfWeights(config: ModelConfig, weights: ReadonlyMap<string, HostTensor>): Params {
  const specs = paramSpecs(config);
  const params: Params = new Map();
  const problems: string[] = [];
  for (const s of specs) {
    const t = weights.get(s.name);
    if (!t) problems.push(`missing ${s.name}`);
    else if (t.dtype !== 'F32' || !(t.data instanceof Float32Array)) problems.push(`${s.name} is ${t.dtype}, expected F32`);
    else if (!sameShape(t.shape, s.shape)) problems.push(`${s.name} is [${t.shape}], expected [${s.shape}]`);
    else params.set(s.name, t.data);
  }
  const known = new Set(specs.map((s) => s.name));
  const extra = [...weights.keys()].filter((k) => !known.has(k));
  if (extra.length > 0) problems.push(`unexpected ${extra.slice(0, 5).join(', ')}${extra.length > 5 ? ` and ${extra.length - 5} more` : ''}`);
  if (problems.length > 0) throw new ModelConvertError(`weights do not match the model config: ${problems.slice(0, 8).join('; ')}`);
  return params;
}

/** HF-named F32 tensors of every parameter of `config` (shapes from the config; arrays shared). */
export function hfWeightsFromParams(config: ModelConfig, params: Params): TensorMap {
  const out: TensorMap = new Map();
  for (const s of paramSpecs(config)) {
    const data = params.get(s.name);
    const size = s.shape.reduce((a, b) => a * b, 1);
    if (!data) throw new ModelConvertError(`missing parameter ${s.name}`);
    if (data.length !== size) throw new ModelConvertError(`parameter ${s.name} has ${data.length} values, expected ${size} ([${s.shape}])`);
    out.set(s.name, { dtype: 'F32', shape: [...s.shape], data });
  }
  return out;
}
