// The compiled models of a config: `logprobs` (forward only), `train_step` (loss terms, statistics
// and gradients of the trainable parameters) and `optimizer` (AdamW over the trainable parameters).
import { grad } from '../graph/autodiff/grad';
import { Graph, type Tensor } from '../graph/builder';
import { dumpStage } from '../graph/passes';
import * as F from '../graph/functional';
import { GraphError, type DType } from '../graph/types';
import { type ModelConfig, type ParamSpec, paramSpecs } from './config';
import { type Aggregation, type KlEstimator, aggregate, clippedSurrogate, klPerToken, maskedMean, temperedLogprobs, tokenLogprobs, worldModelLoss } from './losses';
import { buildModel } from './model';

export interface ObjectiveConfig {
  /**
   * Clipped policy-gradient surrogate on `pg_mask` tokens, optional KL to `ref_logprobs`. The ratio's
   * π_θ is scored at the rollouts' sampling `temperature` (default 1), the distribution `old_logprobs`
   * were recorded under; KL, SFT and world-model terms stay at T = 1 (the model itself).
   */
  pg?: { aggregation: Aggregation; kl?: KlEstimator; temperature?: number };
  /** Cross-entropy on `sft_mask` tokens. */
  sft?: { aggregation: Aggregation };
  /** World-model loss on observation tokens weighted by `wm_weight`. */
  worldModel?: { kind: 'cmae' | 'ce' };
}

export const gradName = (param: string) => `grad.${param}`;

/** Forward-only graph: per-token log-probs and entropies of `targets` (optionally the logits). */
export function buildLogprobsGraph(c: ModelConfig, opts: { dtype?: DType; withLogits?: boolean } = {}): Graph {
  const g = new Graph('logprobs');
  const m = buildModel(g, c, opts.dtype);
  const targets = g.input('targets', 'int64', ['B', 'T']);
  const { logprobs, entropy } = g.withScope('loss', () => tokenLogprobs(m.logits, targets));
  g.output(logprobs, 'logprobs');
  g.output(entropy, 'entropy');
  if (opts.withLogits) g.output(m.logits, 'logits');
  return g;
}

/**
 * Generation step with a key/value cache (prefill when P = 0, decode when T = 1): inputs
 * `input_ids`/`position_ids` [B,T], `attention_mask` [B,P+T], `past_key_values.{i}.key|value`
 * [B,KV,P,D]; outputs `logits` [B,V] of the last position and `present.{i}.key|value` [B,KV,P+T,D].
 */
export function buildDecodeGraph(c: ModelConfig, opts: { dtype?: DType; embedWeights?: ReadonlyMap<string, Float32Array | Float64Array> } = {}): Graph {
  const g = new Graph('decode');
  const m = buildModel(g, c, opts.dtype, { cache: true });
  // Self-contained inference model: weights become initialisers.
  if (opts.embedWeights) embedParams(g, c, opts.embedWeights);
  g.output(m.logits, 'logits');
  outputPresents(g, m.presents!);
  return g;
}

/**
 * The ONNX export, in Optimum's `text-generation-with-past` convention (what transformers.js and
 * Optimum's ORTModelForCausalLM run): the decode graph's inputs and presents, weights as
 * initialisers, but `logits` [B,T,V] for every position: those loaders take the last row themselves,
 * and read a [B,V] output as one position's logits per batch row. Separate from `buildDecodeGraph`
 * so our runtime keeps computing the LM head for the last position only.
 */
export function buildOnnxExportGraph(c: ModelConfig, weights: ReadonlyMap<string, Float32Array>): Graph {
  const g = new Graph('model');
  const m = buildModel(g, c, 'float32', { cache: true, allPositions: true });
  embedParams(g, c, weights);
  g.output(F.reshape(m.logits, ['B', 'T', c.vocabSize]), 'logits'); // [B,T,V]
  outputPresents(g, m.presents!);
  return g;
}

function embedParams(g: Graph, c: ModelConfig, weights: ReadonlyMap<string, Float32Array | Float64Array>): void {
  for (const s of paramSpecs(c)) g.embedInput(s.name, weights.get(s.name) ?? missingWeight(s.name));
}

function outputPresents(g: Graph, presents: readonly { key: Tensor; value: Tensor }[]): void {
  presents.forEach((p, i) => {
    g.output(p.key, `present.${i}.key`);
    g.output(p.value, `present.${i}.value`);
  });
}

/**
 * One decode step against a fixed-capacity cache, for our runtime only (the export keeps the
 * standard `past_key_values`/`present` interface above): inputs `input_ids`/`position_ids` [B,1],
 * `attention_mask` [B,S] (1 on cache slots holding a real token), `cache.{i}.key|value`
 * [B,KV,S,D]; outputs `logits` [B,V] and the new position's `step.{i}.key|value` [B,KV,1,D].
 * The caller keeps the slots and writes each step's key/value in place, so no step copies the cache.
 */
export function buildResidentDecodeGraph(c: ModelConfig, opts: { dtype?: DType } = {}): Graph {
  const g = new Graph('decode_resident');
  const m = buildModel(g, c, opts.dtype, { residentCache: true });
  g.output(m.logits, 'logits');
  m.presents!.forEach((p, i) => {
    g.output(p.key, `step.${i}.key`);
    g.output(p.value, `step.${i}.value`);
  });
  return g;
}

function missingWeight(name: string): never {
  throw new GraphError(`embedWeights: no value for parameter ${name}`);
}

/** Loss + gradients for one micro-batch. Output names: `loss`, `loss.<term>`, `stat.<name>`, `logprobs`, `entropy`, `grad.<param>`. */
export function buildTrainStepGraph(c: ModelConfig, objective: ObjectiveConfig, opts: { dtype?: DType; withLogits?: boolean } = {}): Graph {
  const dtype = opts.dtype ?? 'float32';
  if (!objective.pg && !objective.sft && !objective.worldModel) throw new GraphError('train_step needs at least one loss term (pg, sft or worldModel)');
  const g = new Graph('train_step');
  const m = buildModel(g, c, dtype);
  const targets = g.input('targets', 'int64', ['B', 'T']);
  const tokenIn = (name: string) => g.input(name, dtype, ['B', 'T']);
  const scalarIn = (name: string) => g.input(name, dtype, []);
  const { logprobs, entropy } = g.withScope('loss', () => tokenLogprobs(m.logits, targets));
  const terms: Tensor[] = [];

  g.withScope('loss', () => {
    if (objective.pg) {
      const mask = tokenIn('pg_mask');
      const norm = scalarIn('pg_norm');
      const T = objective.pg.temperature ?? 1;
      const s = clippedSurrogate({
        logprobs: T === 1 ? logprobs : temperedLogprobs(m.logits, targets, T),
        oldLogprobs: tokenIn('old_logprobs'),
        advantages: tokenIn('advantages'),
        clipLow: scalarIn('clip_low'),
        clipHigh: scalarIn('clip_high'),
        dualClip: scalarIn('dual_clip'),
      });
      const pg = aggregate(s.perToken, mask, objective.pg.aggregation, norm);
      terms.push(g.output(pg, 'loss.pg'));
      g.output(maskedMean(s.clipped, mask), 'stat.clip_frac');
      g.output(maskedMean(s.ratio, mask), 'stat.ratio_mean');
      if (objective.pg.kl) {
        const kl = aggregate(klPerToken(logprobs, tokenIn('ref_logprobs'), objective.pg.kl), mask, objective.pg.aggregation, norm);
        g.output(kl, 'loss.kl');
        terms.push(F.mul(kl, scalarIn('kl_beta')));
      }
    }
    if (objective.sft) {
      const sft = aggregate(F.neg(logprobs), tokenIn('sft_mask'), objective.sft.aggregation, scalarIn('sft_norm'));
      g.output(sft, 'loss.sft');
      terms.push(F.mul(sft, scalarIn('sft_coef')));
    }
    if (objective.worldModel) {
      const weights = tokenIn('wm_weight');
      const wm = worldModelLoss(logprobs, weights, objective.worldModel.kind === 'cmae' ? { kind: 'cmae', rho: scalarIn('cmae_rho') } : { kind: 'ce' });
      g.output(wm, 'loss.wm');
      terms.push(F.mul(wm, scalarIn('wm_coef')));
    }
  });
  const loss = terms.reduce((a, b) => F.add(a, b));
  g.output(loss, 'loss');
  g.output(logprobs, 'logprobs');
  g.output(entropy, 'entropy');
  if (opts.withLogits) g.output(m.logits, 'logits');
  dumpStage(g, 'forward');
  const trainable = paramSpecs(c, dtype).filter((s) => s.trainable);
  const grads = grad(loss, trainable.map((s) => m.params.get(s.name)!));
  trainable.forEach((s, i) => g.output(grads[i], gradName(s.name)));
  return g;
}

/**
 * AdamW step over `params` (PyTorch's formulation): global-norm clipping of the gradients, then
 * p ← p·(1 − lr·wd) for decayed params, m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g²,
 * p ← p − (lr / (1−β1^t)) · m / (sqrt(v)/sqrt(1−β2^t) + eps).
 * Inputs: `param.<n>`, `grad.<n>`, `m.<n>`, `v.<n>`, scalars `lr`, `beta1`, `beta2`, `eps`,
 * `weight_decay`, `max_grad_norm`, `step` (t ≥ 1). Outputs `new_param.<n>`, `new_m.<n>`, `new_v.<n>`, `grad_norm`.
 */
export function buildOptimizerGraph(params: readonly ParamSpec[], dtype: DType = 'float32'): Graph {
  if (params.length === 0) throw new GraphError('optimizer needs at least one trainable parameter');
  const g = new Graph('optimizer');
  const s = (name: string) => g.input(name, dtype, []);
  const [lr, b1, b2, eps, wd, maxNorm, step] = ['lr', 'beta1', 'beta2', 'eps', 'weight_decay', 'max_grad_norm', 'step'].map(s);
  const slots = params.map((p) => ({
    spec: p,
    p: g.input(`param.${p.name}`, dtype, p.shape),
    g: g.input(gradName(p.name), dtype, p.shape),
    m: g.input(`m.${p.name}`, dtype, p.shape),
    v: g.input(`v.${p.name}`, dtype, p.shape),
  }));
  const norm = F.sqrt(slots.map((x) => F.reduceSum(F.mul(x.g, x.g), undefined, false)).reduce((a, b) => F.add(a, b)));
  g.output(norm, 'grad_norm');
  const scale = F.minimum(F.div(maxNorm, F.add(norm, 1e-6)), 1);
  const sqrtBc2 = F.sqrt(F.sub(1, F.pow(b2, step)));
  // Every scalar folded before touching a tensor, so each parameter costs few passes over its
  // elements: m ← β1·m + (1−β1)·s·g, v ← β2·v + (1−β2)·s²·g², and
  // p − lr/(1−β1^t) · m / (√v/√(1−β2^t) + ε) = p − k · m / (√v + ε·√(1−β2^t)), k = lr·√(1−β2^t)/(1−β1^t).
  const mCoef = F.mul(F.sub(1, b1), scale);
  const vCoef = F.mul(F.sub(1, b2), F.mul(scale, scale));
  const k = F.div(F.mul(lr, sqrtBc2), F.sub(1, F.pow(b1, step)));
  const epsHat = F.mul(eps, sqrtBc2);
  const decay = F.sub(1, F.mul(lr, wd));
  for (const x of slots) {
    g.withScope(x.spec.name, () => {
      const m = F.add(F.mul(x.m, b1), F.mul(x.g, mCoef));
      // g·(c·g), not c·(g·g): the norm's g·g would be merged with it and every parameter's square
      // kept alive through the whole update (a second copy of all gradients).
      const v = F.add(F.mul(x.v, b2), F.mul(F.mul(x.g, vCoef), x.g));
      const update = F.mul(F.div(m, F.add(F.sqrt(v), epsHat)), k);
      g.output(F.sub(x.spec.decay ? F.mul(x.p, decay) : x.p, update), `new_param.${x.spec.name}`);
      g.output(m, `new_m.${x.spec.name}`);
      g.output(v, `new_v.${x.spec.name}`);
    });
  }
  return g;
}
