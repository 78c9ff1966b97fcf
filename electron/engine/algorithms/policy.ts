/**
 * The model as the algorithms see it: generate, score, train, save, load. `NativePolicy` implements it
 * over native-models (compiled ONNX train step + KV-cache generator). One Trainer is compiled per
 * objective (SFT, PPO, PPO + world model); switching objective carries weights, AdamW moments and the
 * step counter across, so a chained run is one optimiser trajectory.
 */
import {
  type Generation,
  type LoraConfig,
  type ModelConfig,
  type Params,
  type SessionOptions,
  type ObjectiveConfig,
  type OptimizerConfig,
  type LossKnobs,
  type StepStats,
  type TrainBatch,
  Trainer,
  growVocabulary,
  preset,
} from '../../../native-models';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TRAINER_STATE_FILE } from '../../../native-models/io/checkpoint';
import { resolveConfig } from '../../../native-models/transformer/config';
import { SPECIAL_TOKENS, loadTokenizer } from '../../../native-models/tokenizer';
import type { TextTokenizer } from '../../../native-models/tokenizer';
import { envTokenizer, MIN_VOCAB, type TokenizerShape } from './env-tokenizer';
import { AlgorithmError } from './errors';
import { chatFrame } from './chat-frame';
import { type PolicyTokenizer, type SpecialIds, specialIds } from './layout';

export interface SamplingOptions {
  temperature: number;
  topP: number;
  seed: number;
}

export interface GenerateRequest {
  prompt: number[];
  maxNewTokens: number;
}

export interface Policy {
  readonly tokenizer: PolicyTokenizer;
  readonly specials: SpecialIds;
  readonly maxSeqLen: number;
  /**
   * Continuations that stop after `<|end|>`; each row gets at most its own `maxNewTokens`. A prompt
   * that extends a sequence generated since the last `forgetPrefixes()` may start from its cached keys.
   */
  generate(requests: readonly GenerateRequest[], sampling: SamplingOptions): Promise<Generation[]>;
  /** Forgets earlier sequences, so what follows depends on nothing generated before (start of a batch of rollouts). */
  forgetPrefixes?(): Promise<void>;
  logprobs(rows: number[][]): Promise<number[][]>;
  trainStep(batch: TrainBatch[], objective: ObjectiveConfig): Promise<StepStats>;
  readonly step: number;
  save(dir: string): void;
  load(dir: string): void;
  release(): Promise<void>;
}

/** A policy that can keep a frozen copy of itself as the KL reference. */
export interface ReferencePolicy {
  readonly hasReference: boolean;
  /** Freezes the current weights as the reference. */
  freezeReference(): Promise<void>;
  referenceLogprobs(rows: number[][]): Promise<number[][]>;
  saveReference(dir: string): void;
  loadReference(dir: string): Promise<void>;
}

/** What every policy's trainers share, whatever the model came from. */
export interface PolicyOptions {
  seed: number;
  optimizer: Partial<OptimizerConfig>;
  knobs: Partial<LossKnobs>;
  /** Execution provider and ORT options of every session (default: auto). */
  session?: SessionOptions;
}

/** The ORT options of a run's sessions: its provider, and its thread count where it sets one. */
export function runSessionOptions(config: { provider: SessionOptions['provider']; threads: number }, onFallback?: (message: string) => void): SessionOptions {
  return { provider: config.provider, ...(config.threads > 0 ? { intraOpThreads: config.threads } : {}), ...(onFallback ? { onFallback } : {}) };
}

export interface NativePolicyOptions extends PolicyOptions {
  preset: 'nano' | 'tiny' | 'small';
  /** Texts the tokenizer is trained on (instructions, tool schemas, demonstrations). */
  corpus: readonly string[];
  /** A tokenizer to reuse (e.g. the run's saved one) instead of training a new one. */
  tokenizer?: TextTokenizer;
  /** How a new tokenizer treats word starts and digits (env-tokenizer.ts); default merged, single. */
  tokenizerShape?: TokenizerShape;
}

/** A pretrained model to start from: its config, weights and tokenizer (an imported Hugging Face folder). */
export interface PretrainedModel {
  name: string;
  config: ModelConfig;
  weights: Params;
  tokenizer: TextTokenizer;
}

export { envTokenizer } from './env-tokenizer';

/**
 * `model` with its context cut to `tokens` (a run's `contextTokens`), never above its own: the
 * memory of a train step grows with the square of the sequence, and a 135M model at 8,192 tokens
 * does not fit beside anything else on a small machine.
 */
export function withContext(model: PretrainedModel, tokens: number | undefined): PretrainedModel {
  if (tokens === undefined || tokens >= model.config.maxSeqLen) return model;
  return { ...model, config: { ...model.config, maxSeqLen: tokens } };
}

export class NativePolicy implements Policy, ReferencePolicy {
  readonly specials: SpecialIds;
  private trainers = new Map<string, Trainer>();
  private active: Trainer;
  private reference?: Trainer;
  private learningRate: number | null = null;

  private constructor(
    readonly tokenizer: TextTokenizer,
    readonly config: ModelConfig,
    private readonly opts: PolicyOptions,
    first: Trainer,
    firstKey: string,
  ) {
    // An imported chat model frames its turns as its own template does (chat-frame.ts).
    this.specials = specialIds(tokenizer, chatFrame(tokenizer));
    this.active = first;
    this.trainers.set(firstKey, first);
  }

  /** Preset config with the vocabulary of the env tokenizer (the preset's width is a floor). */
  static async create(opts: NativePolicyOptions, objective: ObjectiveConfig = { sft: { aggregation: 'token-mean' } }): Promise<NativePolicy> {
    const base = preset(opts.preset);
    const tokenizer = opts.tokenizer ?? envTokenizer(opts.corpus, Math.max(base.vocabSize, MIN_VOCAB), opts.tokenizerShape);
    return NativePolicy.build(tokenizer, { ...base, vocabSize: tokenizer.vocabSize }, undefined, opts, objective);
  }

  /**
   * A pretrained model as the starting policy. Its tokenizer gains our role markers (`<|act|>`,
   * `<|obs|>`, …) as special tokens where it lacks them, after its last id; the embedding grows by
   * one row per marker, each the mean of the rows of the marker's word ("act", "obs", …) in the
   * model's own tokenizer, so the markers start distinct and readable.
   */
  static async fromPretrained(
    model: PretrainedModel,
    opts: PolicyOptions,
    lora?: LoraConfig,
    objective: ObjectiveConfig = { sft: { aggregation: 'token-mean' } },
  ): Promise<NativePolicy> {
    const tokenizer = model.tokenizer.withSpecialTokens(SPECIAL_TOKENS, model.config.vocabSize);
    const vocab = Math.max(model.config.vocabSize, tokenizer.vocabSize);
    const seeds = Array.from({ length: vocab - model.config.vocabSize }, (_, i) => {
      const marker = tokenizer.idToToken(model.config.vocabSize + i) ?? '';
      return model.tokenizer.encode(` ${marker.replace(/^<\|(.*)\|>$/, '$1')}`, { parseSpecial: false });
    });
    const { config, params } = growVocabulary(model.config, model.weights, vocab, seeds);
    // With adapters the grown model is frozen and only they train (the trainer initialises them).
    return NativePolicy.build(tokenizer, lora ? { ...config, lora } : config, params, opts, objective);
  }

  private static async build(tokenizer: TextTokenizer, config: ModelConfig, params: Params | undefined, opts: PolicyOptions, objective: ObjectiveConfig): Promise<NativePolicy> {
    const trainer = await Trainer.create({ config, objective, params, optimizer: opts.optimizer, knobs: opts.knobs, seed: opts.seed, session: opts.session });
    return new NativePolicy(tokenizer, config, opts, trainer, JSON.stringify(objective));
  }

  /**
   * A policy from a run checkpoint folder (`…/checkpoints/step-N/`): its tokenizer, the model config
   * stored with the weights, and the weights and moments themselves (for eval, rehearse, export).
   */
  static async fromCheckpoint(
    dir: string,
    opts: Partial<PolicyOptions> = {},
  ): Promise<NativePolicy> {
    const stateFile = join(dir, 'model', TRAINER_STATE_FILE);
    let config: ModelConfig;
    try {
      config = resolveConfig({}, (JSON.parse(readFileSync(stateFile, 'utf8')) as { state: { config: ModelConfig } }).state.config);
    } catch (e) {
      throw new AlgorithmError(`${dir} is not a run checkpoint (cannot read the model config in ${stateFile}: ${(e as Error).message})`);
    }
    const tokenizer = loadTokenizer(join(dir, 'tokenizer'));
    if (tokenizer.vocabSize !== config.vocabSize)
      throw new AlgorithmError(`${dir}: tokenizer has ${tokenizer.vocabSize} ids, the model ${config.vocabSize}`);
    const o: PolicyOptions = { seed: opts.seed ?? 0, optimizer: opts.optimizer ?? {}, knobs: opts.knobs ?? {}, session: opts.session };
    const policy = await NativePolicy.build(tokenizer, config, undefined, o, { sft: { aggregation: 'token-mean' } });
    policy.load(join(dir, 'model'));
    return policy;
  }

  get maxSeqLen(): number {
    return this.config.maxSeqLen;
  }

  get step(): number {
    return this.active.currentStep;
  }

  /** The execution provider the sessions run on. */
  get provider(): string {
    return this.active.provider;
  }

  async generate(requests: readonly GenerateRequest[], s: SamplingOptions): Promise<Generation[]> {
    const out: Generation[] = new Array(requests.length);
    for (const [b, rows] of bucketByRoom(requests, this.maxSeqLen).entries()) {
      const longest = Math.max(...rows.map((i) => requests[i].prompt.length));
      const maxNew = Math.min(this.maxSeqLen - longest, Math.max(...rows.map((i) => requests[i].maxNewTokens)));
      if (maxNew < 1) throw new AlgorithmError(`a prompt of ${longest} tokens leaves no room to generate (maxSeqLen ${this.maxSeqLen})`);
      const gens = await this.active.generate(
        rows.map((i) => requests[i].prompt),
        {
          maxNewTokens: maxNew,
          temperature: s.temperature,
          topP: s.topP,
          seed: b === 0 ? s.seed : (s.seed + b * 0x9e3779b9) >>> 0,
          stopTokenIds: [this.specials.end],
          // The next turn of a rollout extends this one's prompt and output: prefill only what is new.
          reusePrefixes: true,
        },
      );
      // A row keeps only its own budget of tokens (what it would have sampled alone).
      rows.forEach((i, j) => {
        const g = gens[j];
        const n = requests[i].maxNewTokens;
        out[i] = g.tokens.length <= n ? g : { tokens: g.tokens.slice(0, n), logprobs: g.logprobs.slice(0, n), finishReason: 'length' };
      });
    }
    return out;
  }

  async forgetPrefixes(): Promise<void> {
    await this.active.forgetPrefixes();
  }

  async logprobs(rows: number[][]): Promise<number[][]> {
    return (await this.active.logprobs(rows)).logprobs;
  }

  /**
   * The learning rate of the next updates, set per run step by the stage's schedule (RunContext);
   * null falls back to the optimizer config's one schedule over the whole run.
   */
  setLearningRate(lr: number | null): void {
    this.learningRate = lr;
    this.active.setLearningRate(lr);
  }

  /** Zero the AdamW moments, e.g. when an RL stage starts after SFT with its own optimiser state. */
  resetMoments(): void {
    this.active.resetMoments();
  }

  async trainStep(batch: TrainBatch[], objective: ObjectiveConfig): Promise<StepStats> {
    await this.use(objective);
    return this.active.trainStep(batch);
  }

  /** Makes `objective`'s trainer the active one, handing it the current weights and moments. */
  private async use(objective: ObjectiveConfig): Promise<void> {
    const key = JSON.stringify(objective);
    let next = this.trainers.get(key);
    if (next === this.active) return;
    if (!next) {
      next = await Trainer.create({
        config: this.config,
        objective,
        optimizer: this.opts.optimizer,
        knobs: this.opts.knobs,
        seed: this.opts.seed,
        session: this.opts.session,
      });
      this.trainers.set(key, next);
    }
    next.setParams(this.active.getParams());
    next.loadState(this.active.state());
    next.setLearningRate(this.learningRate);
    // The trainer set aside keeps no baked copy of weights that are about to move on.
    await this.active.releaseGenerationCache();
    this.active = next;
  }

  get hasReference(): boolean {
    return this.reference !== undefined;
  }

  async freezeReference(): Promise<void> {
    await this.reference?.release();
    this.reference = await Trainer.create({
      config: this.config,
      objective: { sft: { aggregation: 'token-mean' } },
      params: this.active.getParams(),
      seed: this.opts.seed,
      session: this.opts.session,
    });
  }

  async referenceLogprobs(rows: number[][]): Promise<number[][]> {
    if (!this.reference) throw new AlgorithmError('no KL reference has been frozen');
    return (await this.reference.logprobs(rows)).logprobs;
  }

  saveReference(dir: string): void {
    if (!this.reference) throw new AlgorithmError('no KL reference has been frozen');
    this.reference.save(dir);
  }

  async loadReference(dir: string): Promise<void> {
    await this.freezeReference();
    this.reference!.load(dir);
  }

  save(dir: string): void {
    this.active.save(dir);
  }

  load(dir: string): void {
    this.active.load(dir);
  }

  async release(): Promise<void> {
    await Promise.all([...this.trainers.values(), ...(this.reference ? [this.reference] : [])].map((t) => t.release()));
  }
}

/**
 * Rows generate together when the longest prompt among them still leaves each row its budget;
 * otherwise one long prompt would cut every other row's turn short. Longest prompts first.
 */
export function bucketByRoom(requests: readonly GenerateRequest[], maxSeqLen: number): number[][] {
  const order = requests.map((_, i) => i).sort((a, b) => requests[b].prompt.length - requests[a].prompt.length || a - b);
  const buckets: number[][] = [];
  let room = -1;
  for (const i of order) {
    const need = Math.min(requests[i].maxNewTokens, maxSeqLen - requests[i].prompt.length);
    if (buckets.length && need <= room) buckets[buckets.length - 1].push(i);
    else {
      buckets.push([i]);
      room = maxSeqLen - requests[i].prompt.length;
    }
  }
  return buckets;
}
