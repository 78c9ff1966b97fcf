// Batched generation with a key/value cache: left-pad the prompts, one prefill, then one decode
// step per token. Returns the generated ids with their log-probs under the model (temperature 1),
// which is what a policy-gradient ratio needs as π_old.
import { compileGraph } from '../graph/passes';
import { type ModelConfig, headDim, paramSpecs } from '../transformer/config';
import { buildDecodeGraph } from '../transformer/graphs';
import type { Params } from '../transformer/init';
import { type SamplingParams, logSoftmax, sampleToken, seededRandom } from './sampling';
import { type CompiledSession, type SessionOptions, createSession, ort } from './session';

export interface GenerateOptions extends Partial<SamplingParams> {
  maxNewTokens: number;
  /** Generation of a row stops after it emits one of these ids (the id is kept in its output). */
  stopTokenIds?: readonly number[];
  /** With `decode`, a row also stops once its decoded output contains one of these strings. */
  stopStrings?: readonly string[];
  decode?: (ids: number[]) => string;
  seed?: number;
  /** Called after each model run and its sampling with that step's logits [B·V] (step 0 is the prefill): timing and diagnostics. */
  onStep?: (step: number, logits: Float32Array) => void;
}

export interface Generation {
  tokens: number[];
  /** log π(token | prefix) at temperature 1, one per generated token. */
  logprobs: number[];
  finishReason: 'stop' | 'length';
}

export class GenerateError extends Error {
  override readonly name = 'GenerateError';
}

export class Generator {
  private constructor(
    readonly config: ModelConfig,
    private readonly compiled: CompiledSession,
  ) {}

  static async create(config: ModelConfig, session: SessionOptions = {}): Promise<Generator> {
    return new Generator(config, await createSession(compileGraph(buildDecodeGraph(config)), session));
  }

  get provider(): string {
    return this.compiled.provider;
  }

  async generate(params: Params, prompts: number[][], o: GenerateOptions): Promise<Generation[]> {
    const c = this.config;
    this.validate(prompts, o);
    const sampling: SamplingParams = { temperature: o.temperature ?? 1, topK: o.topK ?? 0, topP: o.topP ?? 1 };
    const random = seededRandom(o.seed ?? 0);
    const B = prompts.length;
    const P0 = Math.max(...prompts.map((p) => p.length));
    const [KV, D] = [c.nKvHeads, headDim(c)];
    const paramFeeds: Record<string, ort.Tensor> = {};
    for (const s of paramSpecs(c)) {
      const v = params.get(s.name);
      if (!v) throw new GenerateError(`missing parameter ${s.name}`);
      paramFeeds[s.name] = new ort.Tensor('float32', v, [...s.shape]);
    }
    // Left padding: every row's last prompt token sits at the end of the prefill.
    const mask: number[][] = prompts.map((p) => [...new Array(P0 - p.length).fill(0), ...p.map(() => 1)]);
    let ids = prompts.map((p) => [...new Array(P0 - p.length).fill(0), ...p]);
    let positions = mask.map((row) => row.map((_, t) => Math.max(0, row.slice(0, t + 1).reduce((a, b) => a + b, 0) - 1)));
    const past: Record<string, ort.Tensor> = {};
    for (let i = 0; i < c.nLayers; i++)
      for (const kind of ['key', 'value']) past[`past_key_values.${i}.${kind}`] = new ort.Tensor('float32', new Float32Array(0), [B, KV, 0, D]);
    const out: Generation[] = prompts.map(() => ({ tokens: [], logprobs: [], finishReason: 'length' }));
    const active = prompts.map(() => true);
    for (let step = 0; step < o.maxNewTokens && active.some(Boolean); step++) {
      const T = ids[0].length;
      const i64 = (rows: number[][], width: number) => new ort.Tensor('int64', BigInt64Array.from(rows.flat(), (v) => BigInt(v)), [B, width]);
      const res = await this.compiled.session.run({
        ...paramFeeds,
        ...past,
        input_ids: i64(ids, T),
        position_ids: i64(positions, T),
        attention_mask: i64(mask, mask[0].length),
      });
      const V = c.vocabSize;
      const logits = res.logits.data as Float32Array;
      const next = prompts.map((_, b) => {
        if (!active[b]) return 0;
        const row = logits.subarray(b * V, (b + 1) * V);
        const token = sampleToken(row, sampling, random);
        const g = out[b];
        g.tokens.push(token);
        g.logprobs.push(logSoftmax(row)[token]);
        if (o.stopTokenIds?.includes(token) || (o.decode && o.stopStrings?.some((s) => o.decode!(g.tokens).includes(s)))) {
          g.finishReason = 'stop';
          active[b] = false;
        }
        return token;
      });
      o.onStep?.(step, logits);
      for (let i = 0; i < c.nLayers; i++)
        for (const kind of ['key', 'value']) past[`past_key_values.${i}.${kind}`] = res[`present.${i}.${kind}`];
      ids = next.map((t) => [t]);
      positions = positions.map((row) => [row[row.length - 1] + 1]);
      mask.forEach((row) => row.push(1));
    }
    return out;
  }

  async release(): Promise<void> {
    await this.compiled.session.release();
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
