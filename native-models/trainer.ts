// Trainer: owns the parameters, AdamW moments and compiled sessions of one model, and turns
// batches of token rows into optimiser steps. Gradients of micro-batches are summed; the loss
// normalisers are computed over the whole step, so the sum equals the full-batch gradient.
import { compileGraph } from './graph/passes';
import { type CheckpointInput, loadCheckpoint, saveCheckpoint } from './io/checkpoint';
import type { HostTensor } from './io/dtype';
import { type GenerateOptions, type Generation, Generator } from './runtime/generate';
import { type CompiledSession, type SessionOptions, createSession, ort } from './runtime/session';
import { type ModelConfig, type ParamSpec, paramSpecs, resolveConfig } from './transformer/config';
import { type ObjectiveConfig, buildLogprobsGraph, buildOptimizerGraph, buildTrainStepGraph, gradName } from './transformer/graphs';
import { type Params, initParams } from './transformer/init';
import type { Aggregation } from './transformer/losses';
import { BatchError, type PackedBatch, type TrainBatch, packBatch, unpackPerToken } from './training/batch';
import { type Schedule, lrAt } from './training/schedule';

export interface OptimizerConfig extends Schedule {
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** Global gradient-norm clip; 0 disables clipping. */
  maxGradNorm: number;
}

export const defaultOptimizer: OptimizerConfig = {
  lr: 3e-4, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, maxGradNorm: 1, warmupSteps: 0, totalSteps: 1000, minLrRatio: 0.1,
};

export interface LossKnobs {
  clipLow: number;
  clipHigh: number;
  /** Dual-clip bound c for negative advantages; Infinity disables it. */
  dualClip: number;
  klBeta: number;
  sftCoef: number;
  wmCoef: number;
  cmaeRho: number;
  /** Normaliser of the `constant` aggregation (Dr.GRPO); default: sequences × maxSeqLen. */
  constantNorm?: number;
}

export const defaultKnobs: LossKnobs = { clipLow: 0.2, clipHigh: 0.2, dualClip: 3, klBeta: 0, sftCoef: 1, wmCoef: 1, cmaeRho: 0.2 };

export interface TrainerOptions {
  config: ModelConfig;
  objective: ObjectiveConfig;
  optimizer?: Partial<OptimizerConfig>;
  knobs?: Partial<LossKnobs>;
  /** Initial weights (all parameters, HF names); default: initParams(config, seed). */
  params?: Params;
  seed?: number;
  session?: SessionOptions;
}

export interface StepStats {
  step: number;
  lr: number;
  loss: number;
  /** Each loss term before its coefficient: pg, kl, sft, wm (those in the objective). */
  terms: Record<string, number>;
  gradNorm: number;
  /** Tokens predicted in the step (attention-mask positions). */
  tokens: number;
  microBatches: number;
  entropyMean: number;
  clipFrac?: number;
  ratioMean?: number;
}

export interface TrainerState {
  step: number;
  /** Updates since the moments were last zeroed (Adam's bias correction); `step` when never reset. */
  adamStep?: number;
  m: Params;
  v: Params;
}

export class TrainerError extends Error {
  override readonly name = 'TrainerError';
}

const HUGE = 3e38; // stands in for +∞ in float32 scalar inputs

export class Trainer {
  readonly config: ModelConfig;
  readonly objective: ObjectiveConfig;
  readonly optimizer: OptimizerConfig;
  readonly knobs: LossKnobs;
  readonly specs: readonly ParamSpec[];
  readonly trainable: readonly ParamSpec[];
  private params: Params;
  private m: Params;
  private v: Params;
  private step = 0;
  /** Updates since the moments were last zeroed: Adam's bias correction counts from there. */
  private adamStep = 0;
  /** A learning rate set by the caller (per-stage schedules), used instead of `optimizer`'s schedule. */
  private lrOverride: number | null = null;
  private logprobsSession?: CompiledSession;
  private generator?: Generator;

  private constructor(
    opts: TrainerOptions,
    private readonly trainSession: CompiledSession,
    private readonly optimizerSession: CompiledSession,
    private readonly sessionOptions: SessionOptions,
  ) {
    this.config = opts.config;
    this.objective = opts.objective;
    this.optimizer = { ...defaultOptimizer, ...opts.optimizer };
    this.knobs = { ...defaultKnobs, ...opts.knobs };
    this.specs = paramSpecs(this.config);
    this.trainable = this.specs.filter((s) => s.trainable);
    this.params = new Map();
    const init = initParams(this.config, opts.seed ?? 0);
    // Given weights (e.g. an imported base model) are used as they are; only LoRA adapters they
    // lack are initialised, so a missing base weight is still an error in setParams.
    const given = opts.params;
    this.setParams(given ? new Map([...[...init].filter(([k]) => k.includes('.lora_') && !given.has(k)), ...given]) : init);
    const zeros = () => new Map(this.trainable.map((s) => [s.name, new Float32Array(this.params.get(s.name)!.length)]));
    this.m = zeros();
    this.v = zeros();
  }

  static async create(opts: TrainerOptions): Promise<Trainer> {
    const config = resolveConfig({}, opts.config);
    const sessionOptions = opts.session ?? {};
    const train = await createSession(compileGraph(buildTrainStepGraph(config, opts.objective)), sessionOptions);
    const specs = paramSpecs(config).filter((s) => s.trainable);
    const optim = await createSession(compileGraph(buildOptimizerGraph(specs)), sessionOptions);
    return new Trainer({ ...opts, config }, train, optim, sessionOptions);
  }

  get currentStep(): number {
    return this.step;
  }

  get provider(): string {
    return this.trainSession.provider;
  }

  lrAt(step: number): number {
    return lrAt(step, this.optimizer);
  }

  /** Use `lr` for the next updates (null: back to the optimizer config's own schedule). */
  setLearningRate(lr: number | null): void {
    if (lr !== null && !(Number.isFinite(lr) && lr >= 0)) throw new TrainerError(`setLearningRate: ${lr} is not a learning rate`);
    this.lrOverride = lr;
  }

  /** Zero the AdamW moments (a new stage that should not inherit the last one's gradient statistics). */
  resetMoments(): void {
    for (const map of [this.m, this.v]) for (const [k, v] of map) map.set(k, new Float32Array(v.length));
    this.adamStep = 0;
  }

  /** One optimiser step over one batch or several micro-batches (gradients accumulated). */
  async trainStep(batch: TrainBatch | TrainBatch[]): Promise<StepStats> {
    const micro = Array.isArray(batch) ? batch : [batch];
    if (micro.length === 0) throw new BatchError('trainStep needs at least one micro-batch');
    const packed = micro.map((b) => packBatch(b, this.config));
    packed.forEach((p, i) => this.checkFields(p, i));
    const norms = this.norms(packed);
    // The first micro-batch's gradient buffers become the accumulators; later ones are added in place.
    const grads: Params = new Map();
    const terms: Record<string, number> = {};
    let loss = 0;
    let tokens = 0;
    let entropySum = 0;
    let pgTokens = 0;
    let clipSum = 0;
    let ratioSum = 0;
    for (const p of packed) {
      const out = await this.trainSession.session.run(this.trainFeeds(p, norms));
      for (const s of this.trainable) {
        const gr = out[gradName(s.name)].data as Float32Array;
        const acc = grads.get(s.name);
        if (!acc) grads.set(s.name, gr);
        else for (let i = 0; i < acc.length; i++) acc[i] += gr[i];
      }
      loss += scalar(out.loss);
      for (const k of Object.keys(out)) if (k.startsWith('loss.')) terms[k.slice(5)] = (terms[k.slice(5)] ?? 0) + scalar(out[k]);
      const attn = p.attentionMask;
      const ent = out.entropy.data as Float32Array;
      for (let i = 0; i < attn.length; i++) if (attn[i]) { tokens++; entropySum += ent[i]; }
      if (this.objective.pg) {
        const n = sum(p.perToken.get('pg_mask')!);
        pgTokens += n;
        clipSum += n * scalar(out['stat.clip_frac']);
        ratioSum += n * scalar(out['stat.ratio_mean']);
      }
    }
    const lr = this.lrOverride ?? this.lrAt(this.step);
    const gradNorm = await this.applyGradients(grads, lr);
    // The weights just changed: a decode session baked with the old ones is only memory now.
    await this.generator?.forgetWeights();
    this.step++;
    this.adamStep++;
    const stats: StepStats = { step: this.step, lr, loss, terms, gradNorm, tokens, microBatches: packed.length, entropyMean: entropySum / Math.max(tokens, 1) };
    if (this.objective.pg) {
      stats.clipFrac = clipSum / Math.max(pgTokens, 1);
      stats.ratioMean = ratioSum / Math.max(pgTokens, 1);
    }
    return stats;
  }

  /** Per-token log-probs and entropies, aligned with each row (entry 0 is 0: nothing predicts it). */
  async logprobs(tokens: number[][]): Promise<{ logprobs: number[][]; entropy: number[][] }> {
    this.logprobsSession ??= await createSession(compileGraph(buildLogprobsGraph(this.config)), this.sessionOptions);
    const p = packBatch({ tokens }, this.config);
    const feeds = { ...this.modelFeeds(p), targets: new ort.Tensor('int64', p.targets, [p.B, p.T]) };
    const out = await this.logprobsSession.session.run(feeds);
    return {
      logprobs: unpackPerToken(out.logprobs.data as Float32Array, tokens, p.T),
      entropy: unpackPerToken(out.entropy.data as Float32Array, tokens, p.T),
    };
  }

  /** Frees the generator's copy of the weights (rebuilt on the next generate); for a trainer set aside. */
  async releaseGenerationCache(): Promise<void> {
    await this.generator?.forgetWeights();
  }

  /** Empties the generator's store of earlier sequences (see GenerateOptions.reusePrefixes). */
  async forgetPrefixes(): Promise<void> {
    await this.generator?.forgetPrefixes();
  }

  /** Samples continuations of `prompts` with the current weights (KV cache; see runtime/generate). */
  async generate(prompts: number[][], opts: GenerateOptions): Promise<Generation[]> {
    this.generator ??= await Generator.create(this.config, this.sessionOptions);
    return this.generator.generate(this.params, prompts, opts);
  }

  /** A copy of every parameter (HF names). */
  getParams(): Params {
    return new Map([...this.params].map(([k, v]) => [k, v.slice()]));
  }

  /** Replaces parameters; every one must be given with the right size. Optimiser moments are kept. */
  setParams(params: Params): void {
    const next: Params = new Map();
    for (const s of this.specs) {
      const v = params.get(s.name);
      const n = s.shape.reduce((a, b) => a * b, 1);
      if (!v) throw new TrainerError(`setParams: missing parameter ${s.name}`);
      if (!(v instanceof Float32Array) || v.length !== n) throw new TrainerError(`setParams: ${s.name} must be a Float32Array of ${n} values ([${s.shape}]), got ${v.length}`);
      next.set(s.name, v.slice());
    }
    const extra = [...params.keys()].filter((k) => !this.specs.some((s) => s.name === k));
    if (extra.length) throw new TrainerError(`setParams: unknown parameters ${extra.slice(0, 5).join(', ')}`);
    this.params = next;
  }

  state(): TrainerState {
    const copy = (p: Params) => new Map([...p].map(([k, v]) => [k, v.slice()]));
    return { step: this.step, adamStep: this.adamStep, m: copy(this.m), v: copy(this.v) };
  }

  loadState(s: TrainerState): void {
    for (const spec of this.trainable) {
      const n = this.params.get(spec.name)!.length;
      for (const [which, map] of [['m', s.m], ['v', s.v]] as const)
        if (map.get(spec.name)?.length !== n) throw new TrainerError(`loadState: moment ${which}.${spec.name} missing or of the wrong size`);
    }
    this.step = s.step;
    this.adamStep = s.adamStep ?? s.step;
    this.m = new Map(this.trainable.map((t) => [t.name, s.m.get(t.name)!.slice()]));
    this.v = new Map(this.trainable.map((t) => [t.name, s.v.get(t.name)!.slice()]));
  }

  /** Writes trainable weights, moments and the step as a checkpoint folder (atomically). */
  save(dir: string): void {
    const host = (p: Params) => new Map(this.trainable.map((s) => [s.name, { dtype: 'F32', shape: [...s.shape], data: p.get(s.name)! } as HostTensor]));
    const frozen = this.specs.filter((s) => !s.trainable);
    const data: CheckpointInput = {
      weights: host(this.params),
      optimizer: { m: host(this.m), v: host(this.v) },
      // A LoRA model's frozen base goes with it, so the folder alone restores the model.
      frozen: frozen.length ? new Map(frozen.map((s) => [s.name, { dtype: 'F32', shape: [...s.shape], data: this.params.get(s.name)! } as HostTensor])) : undefined,
      trainerState: { step: this.step, adamStep: this.adamStep, config: this.config, objective: this.objective, optimizer: this.optimizer },
    };
    saveCheckpoint(dir, data);
  }

  /** Restores a checkpoint written by `save`, frozen LoRA base weights included when it has them. */
  load(dir: string): void {
    const spec = (s: ParamSpec) => ({ name: s.name, shape: [...s.shape], dtype: 'F32' as const });
    const ck = loadCheckpoint(dir, this.trainable.map(spec), this.specs.filter((s) => !s.trainable).map(spec));
    const { step, adamStep } = ck.trainerState as { step?: unknown; adamStep?: unknown };
    if (!Number.isInteger(step)) throw new TrainerError(`checkpoint ${dir} has no integer step in its trainer state`);
    const asParams = (m: Map<string, HostTensor>) => new Map([...m].map(([k, t]) => [k, t.data as Float32Array]));
    const weights = asParams(ck.weights);
    this.setParams(new Map([...this.params, ...(ck.frozen ? asParams(ck.frozen) : []), ...weights]));
    // Checkpoints from before per-stage moments have no adamStep: their moments never were reset.
    const adam = Number.isInteger(adamStep) ? (adamStep as number) : (step as number);
    if (ck.optimizer) this.loadState({ step: step as number, adamStep: adam, m: asParams(ck.optimizer.m), v: asParams(ck.optimizer.v) });
    else {
      this.step = step as number;
      this.adamStep = adam;
    }
  }

  async release(): Promise<void> {
    await Promise.all([this.trainSession.session.release(), this.optimizerSession.session.release(), this.logprobsSession?.session.release(), this.generator?.release()]);
  }

  private checkFields(p: PackedBatch, i: number): void {
    const need: string[] = [];
    if (this.objective.pg) need.push('pg_mask', 'advantages', 'old_logprobs', ...(this.objective.pg.kl ? ['ref_logprobs'] : []));
    if (this.objective.sft) need.push('sft_mask');
    if (this.objective.worldModel) need.push('wm_weight');
    const missing = need.filter((n) => !p.perToken.has(n));
    if (missing.length) throw new BatchError(`micro-batch ${i} lacks ${missing.join(', ')} required by the objective`);
  }

  private norms(packed: PackedBatch[]): Record<string, number> {
    const norm = (input: string, mode: Aggregation) => {
      let value = 0;
      if (mode === 'token-mean') for (const p of packed) value += sum(p.perToken.get(input)!);
      else if (mode === 'seq-mean-token-mean') {
        for (const p of packed) for (let b = 0; b < p.B; b++) if (p.perToken.get(input)!.subarray(b * p.T, (b + 1) * p.T).some((x) => x !== 0)) value++;
      } else value = this.knobs.constantNorm ?? packed.reduce((n, p) => n + p.B, 0) * this.config.maxSeqLen;
      return Math.max(value, 1);
    };
    const out: Record<string, number> = {};
    if (this.objective.pg) out.pg_norm = norm('pg_mask', this.objective.pg.aggregation);
    if (this.objective.sft) out.sft_norm = norm('sft_mask', this.objective.sft.aggregation);
    return out;
  }

  private modelFeeds(p: PackedBatch): Record<string, ort.Tensor> {
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', p.inputIds, [p.B, p.T]),
      attention_mask: new ort.Tensor('int64', p.attentionMask, [p.B, p.T]),
      position_ids: new ort.Tensor('int64', p.positionIds, [p.B, p.T]),
    };
    for (const s of this.specs) feeds[s.name] = new ort.Tensor('float32', this.params.get(s.name)!, [...s.shape]);
    return feeds;
  }

  private trainFeeds(p: PackedBatch, norms: Record<string, number>): Record<string, ort.Tensor> {
    const k = this.knobs;
    const scalars: Record<string, number> = {
      ...norms,
      clip_low: k.clipLow, clip_high: k.clipHigh, dual_clip: Math.min(k.dualClip, HUGE),
      kl_beta: k.klBeta, sft_coef: k.sftCoef, wm_coef: k.wmCoef, cmae_rho: k.cmaeRho,
    };
    const feeds: Record<string, ort.Tensor> = { ...this.modelFeeds(p), targets: new ort.Tensor('int64', p.targets, [p.B, p.T]) };
    const wanted = new Set(this.trainSession.session.inputNames);
    for (const [name, data] of p.perToken) if (wanted.has(name)) feeds[name] = new ort.Tensor('float32', data, [p.B, p.T]);
    for (const [name, value] of Object.entries(scalars)) if (wanted.has(name)) feeds[name] = new ort.Tensor('float32', Float32Array.of(value), []);
    return feeds;
  }

  private async applyGradients(grads: Params, lr: number): Promise<number> {
    const o = this.optimizer;
    const feeds: Record<string, ort.Tensor> = {};
    const f32 = (v: number) => new ort.Tensor('float32', Float32Array.of(v), []);
    Object.assign(feeds, {
      lr: f32(lr), beta1: f32(o.beta1), beta2: f32(o.beta2), eps: f32(o.eps), weight_decay: f32(o.weightDecay),
      max_grad_norm: f32(o.maxGradNorm > 0 ? o.maxGradNorm : HUGE), step: f32(this.adamStep + 1),
    });
    for (const s of this.trainable) {
      const shape = [...s.shape];
      feeds[`param.${s.name}`] = new ort.Tensor('float32', this.params.get(s.name)!, shape);
      feeds[gradName(s.name)] = new ort.Tensor('float32', grads.get(s.name)!, shape);
      feeds[`m.${s.name}`] = new ort.Tensor('float32', this.m.get(s.name)!, shape);
      feeds[`v.${s.name}`] = new ort.Tensor('float32', this.v.get(s.name)!, shape);
    }
    const out = await this.optimizerSession.session.run(feeds);
    for (const s of this.trainable) {
      this.params.set(s.name, out[`new_param.${s.name}`].data as Float32Array);
      this.m.set(s.name, out[`new_m.${s.name}`].data as Float32Array);
      this.v.set(s.name, out[`new_v.${s.name}`].data as Float32Array);
    }
    return scalar(out.grad_norm);
  }
}

function scalar(t: ort.Tensor): number {
  return Number((t.data as Float32Array)[0]);
}

function sum(a: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s;
}
