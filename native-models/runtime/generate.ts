// Batched generation with a key/value cache: left-pad the prompts, one prefill, then one decode
// step per token, for as many rows at a time as a memory budget holds (chunks.ts). Returns the
// generated ids with their log-probs under the distribution sampled (temperature, truncation; see
// sampleWithLogprob), which is what a policy-gradient ratio needs as π_old.
import { compileGraph } from '../graph/passes';
import { type ModelConfig, headDim, paramSpecs } from '../transformer/config';
import { buildDecodeGraph, buildResidentDecodeGraph } from '../transformer/graphs';
import type { Params } from '../transformer/init';
import { type SamplingParams, sampleWithLogprob, seededRandom } from './sampling';
import { type CompiledSession, type SessionOptions, createSession, ort } from './session';
import { WeightStamp } from './weight-stamp';
import { PrefixStore, type Reuse, prefillLayout, prefillShape } from './prefix-store';
import { chunks, defaultChunkBytes, rowBytes } from './chunks';

export interface GenerateOptions extends Partial<SamplingParams> {
  maxNewTokens: number;
  /** Generation of a row stops after it emits one of these ids (the id is kept in its output). */
  stopTokenIds?: readonly number[];
  /** With `decode`, a row also stops once its decoded output contains one of these strings. */
  stopStrings?: readonly string[];
  decode?: (ids: number[]) => string;
  seed?: number;
  /**
   * Start prompts that extend a sequence an earlier reusing call generated (same weights) from its
   * stored keys and values, and store this call's sequences. The output then depends on those
   * earlier calls at float-rounding level: a caller wanting exact repeats empties the store with
   * `forgetPrefixes()` at the start of each batch of work (the rollout engine does).
   */
  reusePrefixes?: boolean;
  /**
   * Called after each model run and its sampling with that step's logits [B·V] (step 0 is the
   * prefill): timing and diagnostics. A call run in several chunks (GeneratorOptions.chunkBytes)
   * reports each chunk's rows from step 0.
   */
  onStep?: (step: number, logits: Float32Array) => void;
}

export interface Generation {
  tokens: number[];
  /** log π_T(token | prefix) under the sampled distribution (T = 1 for greedy picks), one per generated token. */
  logprobs: number[];
  finishReason: 'stop' | 'length';
}

export class GenerateError extends Error {
  override readonly name = 'GenerateError';
}

/**
 * How decode steps hold the key/value cache. `resident`: fixed-capacity buffers that stay on the JS
 * side, each step returns only its new key/value, written in place (cost per token flat in the
 * context). `growing`: the exported model's interface, the whole cache out and back in every step.
 */
export type KvCacheMode = 'resident' | 'growing';

/**
 * How resident decode steps get the weights. `baked`: compiled into the step session as constants,
 * which ORT pre-packs for its GEMM kernels once (a decode step is a few rows against every weight,
 * so re-packing fed weights every step costs as much as the product itself: about 2× at batch 1);
 * the session is rebuilt when the weights change. `fed`: passed as inputs every step, nothing to
 * rebuild. `auto`: baking costs about what 100 fed steps save, whatever the model's size, so a call
 * asking for at least that many new tokens bakes (rollout turns do: 96 and 256 by default) and a
 * shorter one feeds. Decided per call from the call alone: baked and fed steps round differently,
 * and a call's output must not depend on earlier calls. The prefill always feeds the weights (its
 * many rows amortise the packing).
 */
export type WeightBinding = 'baked' | 'fed' | 'auto';

/** Distinct prompts sharing at least this many opening tokens get that opening prefilled once. */
const MIN_SHARED_PREFIX = 32;

/** `auto` bakes for a call with at least this many new tokens (see WeightBinding). */
const BAKE_AT_TOKENS = 96;

export interface GeneratorOptions {
  kvCache?: KvCacheMode;
  weights?: WeightBinding;
  /**
   * Keys and values of generated sequences kept for prompts that extend them, in calls that ask for
   * it (`reusePrefixes`; resident cache only; default 256 MiB, 0 = off). `forgetPrefixes()` empties
   * it; new weights do too.
   */
  prefixCacheBytes?: number;
  /**
   * Rows of one call generate together in chunks of at most this many bytes of cache and prefill
   * (chunks.ts: rowBytes × rows; default defaultChunkBytes), one chunk after another, so memory follows this
   * budget and not the number of rows. Greedy tokens do not depend on it; sampled rows of a call
   * that needs several chunks draw in another order (see generateNow).
   */
  chunkBytes?: number;
}

export class Generator {
  /** The step session with the weights it was baked with (resident + baked only). */
  private baked: { stamp: WeightStamp; compiled: CompiledSession } | undefined;
  /**
   * What the last call's prefills ran, summed over its chunks: rows (duplicates of a prompt in a
   * chunk are prefilled once), token positions (padding included), prompt tokens whose keys came
   * from the prefix store instead, and the number of chunks.
   */
  lastPrefill: { rows: number; tokens: number; reused: number; chunks: number } | undefined;
  private readonly prefixes: PrefixStore;
  /** How the last call's decode steps got the weights. */
  lastStepWeights: 'baked' | 'fed' | undefined;
  /** generate() calls run one at a time: a rebuild must not release a session another call is using. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly config: ModelConfig,
    /** The exported interface (`past_key_values` in, `present` out): the prefill, and every step when growing. */
    private readonly compiled: CompiledSession,
    /** One-token steps against the resident cache with fed weights; absent when growing or baked. */
    private readonly resident: CompiledSession | undefined,
    readonly kvCache: KvCacheMode,
    readonly weights: WeightBinding,
    private readonly sessionOptions: SessionOptions,
    prefixCacheBytes: number,
    private readonly chunkBytes: number,
  ) {
    this.prefixes = new PrefixStore(paramSpecs(config), kvCache === 'resident' ? prefixCacheBytes : 0);
  }

  static async create(config: ModelConfig, session: SessionOptions = {}, opts: GeneratorOptions = {}): Promise<Generator> {
    const kvCache = opts.kvCache ?? 'resident';
    // Growing steps run the export's interface, whose weights are always inputs.
    const weights = kvCache === 'growing' ? 'fed' : (opts.weights ?? 'auto');
    const prefill = await createSession(compileGraph(buildDecodeGraph(config)), session);
    const resident = kvCache === 'resident' && weights !== 'baked' ? await createSession(compileGraph(buildResidentDecodeGraph(config)), session) : undefined;
    return new Generator(config, prefill, resident, kvCache, weights, session, opts.prefixCacheBytes ?? 256 * 2 ** 20, opts.chunkBytes ?? defaultChunkBytes(config));
  }

  get provider(): string {
    return this.compiled.provider;
  }

  /**
   * Samples continuations of `prompts`. With baked weights the step session is kept for the same
   * parameter arrays (recognised by identity plus a sample of their values) and rebuilt otherwise.
   */
  generate(params: Params, prompts: number[][], o: GenerateOptions): Promise<Generation[]> {
    const run = this.queue.then(() => this.generateNow(params, prompts, o));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async generateNow(params: Params, prompts: number[][], o: GenerateOptions): Promise<Generation[]> {
    const c = this.config;
    this.validate(prompts, o);
    const sampling: SamplingParams = { temperature: o.temperature ?? 1, topK: o.topK ?? 0, topP: o.topP ?? 1 };
    // One stream for the whole call: chunks draw from it in turn, so a call that fits in one chunk
    // samples as it always has (rows of later chunks draw after the earlier chunks' rows are done).
    const random = seededRandom(o.seed ?? 0);
    const paramFeeds: Record<string, ort.Tensor> = {};
    for (const s of paramSpecs(c)) {
      const v = params.get(s.name);
      if (!v) throw new GenerateError(`missing parameter ${s.name}`);
      paramFeeds[s.name] = new ort.Tensor('float32', v, [...s.shape]);
    }
    // Prefix reuse: identical prompts (a GRPO group's rollouts of one task) are prefilled once and
    // their cache rows copied to each duplicate; a prompt extending a sequence generated earlier
    // with these weights starts from its stored keys. The growing cache keeps the export's plain interface.
    const resident = this.kvCache === 'resident';
    const { unique, source } = resident ? uniquePrompts(prompts) : { unique: prompts, source: prompts.map((_, b) => b) };
    const reusing = resident && o.reusePrefixes === true && this.prefixes.capacityBytes > 0;
    if (reusing) {
      this.prefixes.useWeights(params);
      await this.seedSharedPrefix(unique, paramFeeds);
    }
    // Looked up once for the call, before any chunk stores its sequences: what a row reuses does not
    // depend on the chunks.
    const reuse = unique.map((p) => (reusing ? this.prefixes.longest(p) : null));
    // A chunk's distinct prompts (indices into unique) and, for each of its rows, its prompt among them.
    const part = (rows: readonly number[]) => {
      const own = [...new Set(rows.map((b) => source[b]))];
      return { prompts: own.map((u) => unique[u]), reuse: own.map((u) => reuse[u]), from: rows.map((b) => own.indexOf(source[b])) };
    };
    const cost = (rows: readonly number[]) => {
      const q = part(rows);
      return rows.length * rowBytes(c, prefillShape(q.prompts, q.reuse), o.maxNewTokens);
    };
    const steps = await this.stepSession(params, paramFeeds, o.maxNewTokens);
    const out: Generation[] = [];
    this.lastPrefill = { rows: 0, tokens: 0, reused: 0, chunks: 0 };
    for (const rows of chunks(prompts.length, cost, this.chunkBytes)) {
      const q = part(rows);
      const { cache, logits } = await this.prefill(q.prompts, q.reuse, q.from, o.maxNewTokens, paramFeeds, steps);
      const gens = await decodeRows(cache, logits, rows.map((b) => prompts[b]), o, sampling, random, c.vocabSize);
      if (reusing && cache instanceof ResidentCache)
        gens.forEach((g, j) => {
          const p = prompts[rows[j]];
          // Every token that was fed: the prompt and all generated ones but the last.
          const { kv, n } = cache.sequence(j, p.length + g.tokens.length - 1);
          this.prefixes.add({ tokens: [...p, ...g.tokens].slice(0, n), kv });
        });
      out.push(...gens);
    }
    return out;
  }

  /**
   * One chunk's prefill (its distinct prompts) and the cache its rows decode from (row j starts
   * from prompt source[j]), with the logits of each row's last prompt token. Its own function so
   * the prefill's presents and past are garbage once the cache has copied them.
   */
  private async prefill(
    prompts: number[][],
    reuse: Reuse,
    source: number[],
    maxNewTokens: number,
    paramFeeds: Record<string, ort.Tensor>,
    steps: StepSession,
  ): Promise<{ cache: DecodeCache; logits: Float32Array }> {
    const c = this.config;
    const [KV, D] = [c.nKvHeads, headDim(c)];
    const pre = prefillLayout(c, D, prompts, reuse);
    const past: Record<string, ort.Tensor> = {};
    for (let i = 0; i < c.nLayers; i++)
      ['key', 'value'].forEach((kind, k) => (past[`past_key_values.${i}.${kind}`] = new ort.Tensor('float32', pre.past[2 * i + k], [prompts.length, KV, pre.P, D])));
    const res = await this.compiled.session.run({ ...paramFeeds, ...past, input_ids: i64(pre.ids), position_ids: i64(pre.positions), attention_mask: i64(pre.mask) });
    const last = this.lastPrefill!;
    this.lastPrefill = {
      rows: last.rows + prompts.length,
      tokens: last.tokens + prompts.length * pre.ids[0].length,
      reused: last.reused + reuse.reduce((n, r) => n + (r?.length ?? 0), 0),
      chunks: last.chunks + 1,
    };
    const mask = source.map((u) => [...pre.mask[u]]);
    // The last generated token is never fed back, so the cache never holds more than this.
    const capacity = mask[0].length + maxNewTokens - 1;
    const cache = this.kvCache === 'growing' ? new GrowingCache(steps.session, c, steps.feeds, res, mask) : new ResidentCache(steps.session, c, steps.feeds, res, source, mask, capacity);
    return { cache, logits: gatherRows(res.logits.data as Float32Array, source, c.vocabSize) };
  }

  /**
   * Distinct prompts that open alike (the same system block and tool list before each task) share
   * that opening's keys: when the store holds nothing as long for them, it is prefilled once, alone,
   * and stored, so each prompt then prefills only what follows it.
   */
  private async seedSharedPrefix(prompts: readonly number[][], paramFeeds: Record<string, ort.Tensor>): Promise<void> {
    if (prompts.length < 2) return;
    let n = Math.min(...prompts.map((p) => p.length)) - 1;
    for (const p of prompts) for (let k = 0; k < n; k++) if (p[k] !== prompts[0][k]) n = k;
    if (n < MIN_SHARED_PREFIX || prompts.every((p) => (this.prefixes.longest(p)?.length ?? 0) >= n)) return;
    const c = this.config;
    const [KV, D] = [c.nKvHeads, headDim(c)];
    const tokens = prompts[0].slice(0, n);
    const feeds: Record<string, ort.Tensor> = { ...paramFeeds, input_ids: i64([tokens]), position_ids: i64([tokens.map((_, t) => t)]), attention_mask: i64([tokens.map(() => 1)]) };
    for (let i = 0; i < c.nLayers; i++) for (const kind of ['key', 'value']) feeds[`past_key_values.${i}.${kind}`] = new ort.Tensor('float32', new Float32Array(0), [1, KV, 0, D]);
    const res = await this.compiled.session.run(feeds);
    // present.{i}.{kind} is [1,KV,n,D]: exactly a stored sequence's [KV,n,D] layout.
    const kv = Array.from({ length: c.nLayers }, (_, i) => ['key', 'value'].map((kind) => (res[`present.${i}.${kind}`].data as Float32Array).slice())).flat();
    this.prefixes.add({ tokens, kv });
  }

  /** Empties the prefix store, so what follows does not depend on what ran before (a new batch of rollouts). */
  forgetPrefixes(): Promise<void> {
    const run = this.queue.then(() => this.prefixes.clear());
    this.queue = run.catch(() => undefined);
    return run;
  }

  async release(): Promise<void> {
    await this.queue;
    await this.compiled.session.release();
    await this.resident?.session.release();
    await this.baked?.compiled.session.release();
    this.baked = undefined;
  }

  /**
   * Releases the step session baked with the last weights (its own copy of every weight, pre-packed).
   * A trainer calls this when its weights change, so training never holds a stale copy; the next
   * generate() bakes the new weights.
   */
  forgetWeights(): Promise<void> {
    // In the queue, like generate(): a call in flight keeps its session until it is done.
    const run = this.queue.then(async () => {
      const baked = this.baked;
      this.baked = undefined;
      this.prefixes.clear();
      await baked?.compiled.session.release();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The session this call's decode steps run on, and the weights it is fed (none when baked in). */
  private async stepSession(params: Params, paramFeeds: Record<string, ort.Tensor>, maxNewTokens: number): Promise<StepSession> {
    if (this.kvCache === 'growing') return { session: this.compiled.session, feeds: paramFeeds };
    if (this.bakes(maxNewTokens)) return { session: (await this.bakedSession(params)).session, feeds: {} };
    return { session: this.resident!.session, feeds: paramFeeds };
  }

  /** Whether this call's steps run on baked weights (see WeightBinding); records the answer in lastStepWeights. */
  private bakes(maxNewTokens: number): boolean {
    const baked = this.weights === 'baked' || (this.weights === 'auto' && maxNewTokens >= BAKE_AT_TOKENS);
    this.lastStepWeights = baked ? 'baked' : 'fed';
    return baked;
  }

  /** The resident step session with `params` compiled in, rebuilt when they are not the last ones baked. */
  private async bakedSession(params: Params): Promise<CompiledSession> {
    const specs = paramSpecs(this.config);
    if (this.baked && this.baked.stamp.matches(params)) return this.baked.compiled;
    await this.baked?.compiled.session.release();
    this.baked = undefined;
    const graph = buildResidentDecodeGraph(this.config);
    for (const s of specs) graph.embedInput(s.name, params.get(s.name)!);
    const compiled = await createSession(compileGraph(graph), this.sessionOptions);
    this.baked = { stamp: new WeightStamp(specs, params), compiled };
    return compiled;
  }

  private validate(prompts: number[][], o: GenerateOptions): void {
    const c = this.config;
    if (prompts.length === 0) throw new GenerateError('no prompts');
    prompts.forEach((p, b) => {
      if (p.length === 0) throw new GenerateError(`prompt ${b} is empty`);
      const bad = p.findIndex((id) => !Number.isInteger(id) || id < 0 || id >= c.vocabSize);
      if (bad >= 0) throw new GenerateError(`prompt ${b} token ${bad} is ${p[bad]}, outside the vocabulary [0, ${c.vocabSize})`);
    });
    if (!Number.isInteger(o.maxNewTokens) || o.maxNewTokens < 1) throw new GenerateError(`maxNewTokens must be a positive integer, got ${o.maxNewTokens}`);
    const longest = Math.max(...prompts.map((p) => p.length));
    if (longest + o.maxNewTokens > c.maxSeqLen) throw new GenerateError(`prompt (${longest}) + maxNewTokens (${o.maxNewTokens}) exceeds maxSeqLen ${c.maxSeqLen}`);
    if ((o.temperature ?? 1) < 0) throw new GenerateError('temperature must be ≥ 0');
    if ((o.topP ?? 1) <= 0 || (o.topP ?? 1) > 1) throw new GenerateError('topP must be in (0, 1]');
    if ((o.topK ?? 0) < 0 || !Number.isInteger(o.topK ?? 0)) throw new GenerateError('topK must be a non-negative integer');
  }
}

/** Distinct prompts in first-seen order, and for each row the index of its prompt among them. */
function uniquePrompts(prompts: readonly number[][]): { unique: number[][]; source: number[] } {
  const index = new Map<string, number>();
  const unique: number[][] = [];
  const source = prompts.map((p) => {
    const key = p.join(',');
    let u = index.get(key);
    if (u === undefined) index.set(key, (u = unique.push(p) - 1));
    return u;
  });
  return { unique, source };
}

/** Rows [source[b]] of a [U,V] matrix as a [B,V] one (the same array when nothing repeats). */
function gatherRows(m: Float32Array, source: readonly number[], V: number): Float32Array {
  if (source.every((u, b) => u === b) && m.length === source.length * V) return m;
  const out = new Float32Array(source.length * V);
  source.forEach((u, b) => out.set(m.subarray(u * V, (u + 1) * V), b * V));
  return out;
}

/**
 * Samples each row's continuation, one cache step per token, until it stops or has maxNewTokens;
 * `logits` [B·V] are the prefill's, for each row's last prompt token.
 */
async function decodeRows(cache: DecodeCache, logits: Float32Array, prompts: readonly number[][], o: GenerateOptions, sampling: SamplingParams, random: () => number, V: number): Promise<Generation[]> {
  let lastPositions = prompts.map((p) => p.length - 1);
  const out: Generation[] = prompts.map(() => ({ tokens: [], logprobs: [], finishReason: 'length' }));
  const active = prompts.map(() => true);
  for (let step = 0; ; step++) {
    const next = prompts.map((_, b) => {
      if (!active[b]) return 0;
      const row = logits.subarray(b * V, (b + 1) * V);
      const { token, logprob } = sampleWithLogprob(row, sampling, random);
      const g = out[b];
      g.tokens.push(token);
      g.logprobs.push(logprob);
      if (o.stopTokenIds?.includes(token) || (o.decode && o.stopStrings?.some((s) => o.decode!(g.tokens).includes(s)))) {
        g.finishReason = 'stop';
        active[b] = false;
      }
      return token;
    });
    o.onStep?.(step, logits);
    if (step + 1 >= o.maxNewTokens || !active.some(Boolean)) break;
    lastPositions = lastPositions.map((p) => p + 1);
    logits = await cache.step(next, lastPositions);
  }
  return out;
}

const i64 = (rows: number[][]) => new ort.Tensor('int64', BigInt64Array.from(rows.flat(), (v) => BigInt(v)), [rows.length, rows[0].length]);

/** The session decode steps run on and the weights fed to each step (none when they are baked in). */
interface StepSession {
  session: ort.InferenceSession;
  feeds: Record<string, ort.Tensor>;
}

/** The key/value cache between decode steps: `step` feeds one token per row and returns the logits [B·V]. */
interface DecodeCache {
  step(tokens: number[], positions: number[]): Promise<Float32Array>;
}

/** The exported interface: every step takes `present.*` back as `past_key_values.*` (O(context) per step). */
class GrowingCache implements DecodeCache {
  private past: Record<string, ort.Tensor> = {};

  constructor(
    private readonly session: ort.InferenceSession,
    private readonly c: ModelConfig,
    private readonly paramFeeds: Record<string, ort.Tensor>,
    prefill: ort.InferenceSession.OnnxValueMapType,
    private readonly mask: number[][],
  ) {
    this.keep(prefill);
  }

  async step(tokens: number[], positions: number[]): Promise<Float32Array> {
    this.mask.forEach((row) => row.push(1));
    const res = await this.session.run({
      ...this.paramFeeds,
      ...this.past,
      input_ids: i64(tokens.map((t) => [t])),
      position_ids: i64(positions.map((p) => [p])),
      attention_mask: i64(this.mask),
    });
    this.keep(res);
    return res.logits.data as Float32Array;
  }

  private keep(res: ort.InferenceSession.OnnxValueMapType): void {
    for (let i = 0; i < this.c.nLayers; i++)
      for (const kind of ['key', 'value']) this.past[`past_key_values.${i}.${kind}`] = res[`present.${i}.${kind}`] as ort.Tensor;
  }
}

/**
 * Fixed-capacity slots [B,KV,S,D] per layer and kind, fed to every step as the same tensors (ORT
 * reads the Float32Arrays in place); each step's key/value [B,KV,1,D] is written into the next
 * free slot and the slot's mask bit set. Unused slots stay masked out.
 */
class ResidentCache implements DecodeCache {
  private readonly slots: Record<string, { data: Float32Array; tensor: ort.Tensor }> = {};
  /** [B,S]: 1 on slots holding a real token (padding and unused slots 0); the fed token always sees itself. */
  private readonly mask: BigInt64Array;
  private filled: number;
  private readonly rows: number;
  private readonly kvHeads: number;
  private readonly D: number;

  constructor(
    private readonly session: ort.InferenceSession,
    c: ModelConfig,
    private readonly paramFeeds: Record<string, ort.Tensor>,
    prefill: ort.InferenceSession.OnnxValueMapType,
    /** Row b's keys/values are the prefill's row source[b] (duplicate prompts share one). */
    source: readonly number[],
    promptMask: number[][],
    private readonly capacity: number,
  ) {
    const B = promptMask.length;
    const P0 = promptMask[0].length;
    const KV = c.nKvHeads;
    [this.rows, this.kvHeads, this.D, this.filled] = [B * KV, KV, headDim(c), P0];
    const block = P0 * this.D; // one (row, kv head) of the prefill's present
    for (let i = 0; i < c.nLayers; i++)
      for (const kind of ['key', 'value']) {
        const data = new Float32Array(this.rows * capacity * this.D);
        const present = prefill[`present.${i}.${kind}`].data as Float32Array; // [U,KV,P0,D]
        for (let b = 0; b < B; b++)
          for (let h = 0; h < KV; h++) {
            const from = (source[b] * KV + h) * block;
            data.set(present.subarray(from, from + block), (b * KV + h) * capacity * this.D);
          }
        this.slots[`${i}.${kind}`] = { data, tensor: new ort.Tensor('float32', data, [B, c.nKvHeads, capacity, this.D]) };
      }
    this.mask = new BigInt64Array(B * capacity);
    promptMask.forEach((row, b) => row.forEach((m, s) => (this.mask[b * capacity + s] = BigInt(m))));
  }

  async step(tokens: number[], positions: number[]): Promise<Float32Array> {
    if (this.filled >= this.capacity) throw new GenerateError(`resident cache full (${this.capacity} slots)`);
    const B = tokens.length;
    const feeds: Record<string, ort.Tensor> = {
      ...this.paramFeeds,
      input_ids: i64(tokens.map((t) => [t])),
      position_ids: i64(positions.map((p) => [p])),
      attention_mask: new ort.Tensor('int64', this.mask, [B, this.capacity]),
    };
    for (const [name, slot] of Object.entries(this.slots)) feeds[`cache.${name}`] = slot.tensor;
    const res = await this.session.run(feeds);
    const { D, capacity, filled } = this;
    for (const [name, slot] of Object.entries(this.slots)) {
      const fresh = res[`step.${name}`].data as Float32Array; // [B,KV,1,D]
      for (let r = 0; r < this.rows; r++) slot.data.set(fresh.subarray(r * D, (r + 1) * D), (r * capacity + filled) * D);
    }
    for (let b = 0; b < B; b++) this.mask[b * capacity + filled] = 1n;
    this.filled++;
    return res.logits.data as Float32Array;
  }

  /** Row b's first n real positions (fewer if it holds fewer), per layer key then value, each [KV, n, D]. */
  sequence(b: number, n: number): { kv: Float32Array[]; n: number } {
    const { D, capacity, kvHeads: KV } = this;
    const real: number[] = [];
    for (let s = 0; s < capacity && real.length < n; s++) if (this.mask[b * capacity + s] === 1n) real.push(s);
    const kv = Object.values(this.slots).map(({ data }) => {
      const out = new Float32Array(KV * real.length * D);
      for (let h = 0; h < KV; h++) real.forEach((s, j) => out.set(data.subarray(((b * KV + h) * capacity + s) * D, ((b * KV + h) * capacity + s + 1) * D), (h * real.length + j) * D));
      return out;
    });
    return { kv, n: real.length };
  }
}
