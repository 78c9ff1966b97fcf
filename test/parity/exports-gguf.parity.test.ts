// GGUF export loaded by llama.cpp (node-llama-cpp's prebuilt binaries): a briefly trained nano model must
// generate, greedily, the same tokens under llama.cpp as under our Generator. Training first gives every
// step a clear winner (top-1 logit ahead of the runner-up by a margin far above F16 rounding), so the
// agreement is not luck among near-ties. Llama exercises the RoPE row permutation and Q8_0 (nano's d_ff of 176 is not
// whole 32-weight blocks, so its ffn_down falls back to F16 in the same file); Qwen2 / Qwen3 the biases, q/k norms
// and an explicit head dim.
import { join } from 'node:path';
import { getLlama, LlamaLogLevel, type Token } from 'node-llama-cpp';
import { afterAll, describe, expect, it } from 'vitest';
import { Generator, type ModelConfig, type Params } from '../../native-models';
import type { GgufDtype } from '../../electron/contract';
import { exportModel } from '../../electron/engine/models/export';
import { CORPUS, nanoConfig, ourLogits, smallTokenizer, tempDirs, trainedOnCorpus } from '../unit/engine/models/fixtures';

const tmp = tempDirs();
afterAll(tmp.cleanup);
const NEW_TOKENS = 12;
/** Logit gap between the chosen token and the runner-up; F16 weights moved the trained nano's logits by 4e-3 at most when measured. */
const MIN_MARGIN = 0.1;

interface Trained {
  weights: Params;
  prompts: number[][];
  expected: number[][];
}

/** Train briefly on the corpus, then generate greedily with our Generator. */
async function trainAndGenerate(config: ModelConfig): Promise<Trained> {
  const tok = smallTokenizer();
  const rows = CORPUS.map((s) => tok.encode(s));
  const trainer = await trainedOnCorpus(config, 60);
  const weights = trainer.getParams();
  await trainer.release();
  // Prompts from the corpus (memorised continuations) and one the model never saw.
  const prompts = [...rows.slice(0, 3).map((r) => r.slice(0, 3)), tok.encode('door key rome')];
  const generator = await Generator.create(config);
  const expected = (await generator.generate(weights, prompts, { maxNewTokens: NEW_TOKENS, temperature: 0 })).map((g) => g.tokens);
  await generator.release();
  return { weights, prompts, expected };
}

/** Smallest top-1 − top-2 logit gap over every generated position (and each choice is the top-1). */
async function smallestMargin(config: ModelConfig, t: Trained): Promise<number> {
  const V = config.vocabSize;
  let smallest = Infinity;
  for (const [b, tokens] of t.expected.entries()) {
    expect(tokens).toHaveLength(NEW_TOKENS);
    const logits = await ourLogits(config, t.weights, [[...t.prompts[b], ...tokens]]);
    for (let k = 0; k < NEW_TOKENS; k++) {
      const at = logits.subarray((t.prompts[b].length - 1 + k) * V, (t.prompts[b].length + k) * V);
      const sorted = Float32Array.from(at).sort().reverse();
      expect(at[tokens[k]]).toBe(sorted[0]);
      smallest = Math.min(smallest, sorted[0] - sorted[1]);
    }
  }
  return smallest;
}

async function llamaCppGreedy(modelPath: string, prompts: number[][]): Promise<number[][]> {
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: 64, threads: 1 });
  const sequence = context.getSequence();
  const out: number[][] = [];
  try {
    for (const prompt of prompts) {
      await sequence.clearHistory();
      const tokens: number[] = [];
      for await (const t of sequence.evaluate(prompt as Token[], { temperature: 0 })) {
        tokens.push(t);
        if (tokens.length === NEW_TOKENS) break;
      }
      out.push(tokens);
    }
  } finally {
    await context.dispose();
    await model.dispose();
  }
  return out;
}

const VARIANTS: [string, ModelConfig, GgufDtype[]][] = [
  ['Llama (nano)', nanoConfig(), ['f32', 'f16', 'q8_0']],
  ['Qwen2 (q/k/v bias, untied)', nanoConfig({ qkvBias: true, tiedEmbeddings: false }), ['f16']],
  ['Qwen3 (q/k norm, head dim 32)', nanoConfig({ qkNorm: true, headDim: 32 }), ['f16']],
];

describe('GGUF export loaded by llama.cpp', () => {
  for (const [label, config, dtypes] of VARIANTS) {
    it(`${label}: llama.cpp generates our greedy tokens from the ${dtypes.join(', ')} file${dtypes.length > 1 ? 's' : ''}`, async () => {
      const trained = await trainAndGenerate(config);
      expect(await smallestMargin(config, trained)).toBeGreaterThan(MIN_MARGIN);
      for (const dtype of dtypes) {
        const dir = join(tmp.make(), dtype);
        await exportModel({
          config,
          weights: trained.weights,
          tokenizer: smallTokenizer(),
          format: 'gguf',
          ggufDtype: dtype,
          outDir: dir,
          name: 'nano-trained',
        });
        expect(await llamaCppGreedy(join(dir, `model-${dtype}.gguf`), trained.prompts), dtype).toEqual(trained.expected);
      }
    });
  }
});
