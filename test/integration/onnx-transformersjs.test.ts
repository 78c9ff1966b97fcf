// The ONNX export loaded by a loader that is not us: transformers.js (`@huggingface/transformers`,
// AutoModelForCausalLM from the local folder, no network, on the onnxruntime-node this repo already
// has) must greedily generate exactly the tokens our Generator gives and those of an independent
// PyTorch forward (test/parity/exports_reference.py, full recompute per token, no cache). Covered:
// a random Llama-style model, a trained run's checkpoint, a LoRA run (adapters merged on export, our
// Generator running them unmerged), an imported Qwen3-style model, and weights in external data.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AutoModelForCausalLM, Tensor, env } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Generator, type ModelConfig, type Params, exportHfFolder, exportOnnxFolder } from '../../native-models';
import { exportModel } from '../../electron/engine/models/export';
import { hfShapeFromConfig, hfWeightsFromParams } from '../../electron/engine/models/convert';
import { importModel, loadModel } from '../../electron/engine/models/registry';
import { loadRunCheckpoint } from '../../electron/engine/models/run-checkpoint';
import { nanoConfig, ourLogits, randomWeights, smallTokenizer, tempDirs, trainedOnCorpus } from '../unit/engine/models/fixtures';

const PYTHON = '/usr/bin/python3';
const HAS_TORCH = spawnSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
const REFERENCE = join(import.meta.dirname, '..', 'parity', 'exports_reference.py');
if (!HAS_TORCH) console.warn('ONNX export vs PyTorch: SKIPPED the PyTorch leg (/usr/bin/python3 cannot import torch)');

const NEW_TOKENS = 10;
/** Smallest top-1 − top-2 logit gap allowed on the greedy path: float32 loaders differ by ~1e-5, far below it. */
const MIN_MARGIN = 1e-3;

const tmp = tempDirs();
afterAll(tmp.cleanup);

beforeAll(() => {
  // Local folders only: a missing file must fail here, not be fetched from the hub.
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.useFSCache = false;
  env.useBrowserCache = false;
});

describe('transformers.js runs on the onnxruntime-node already installed', () => {
  it('resolves onnxruntime-node to the repo copy (no nested copy, no download)', () => {
    const fromTransformers = createRequire(createRequire(import.meta.url).resolve('@huggingface/transformers')).resolve('onnxruntime-node');
    expect(fromTransformers).toBe(createRequire(import.meta.url).resolve('onnxruntime-node'));
    const ortVersion = (JSON.parse(readFileSync(join(dirname(fromTransformers), '..', 'package.json'), 'utf8')) as { version: string }).version;
    expect(ortVersion).toBe('1.30.0');
  });
});

/** transformers.js greedy continuation of each prompt (one row at a time: no padding in play). */
async function transformersJsGreedy(dir: string, prompts: number[][]): Promise<number[][]> {
  env.localModelPath = `${dirname(dir)}/`;
  const model = await AutoModelForCausalLM.from_pretrained(basename(dir), { dtype: 'fp32', device: 'cpu' });
  try {
    const out: number[][] = [];
    for (const p of prompts) {
      const ids = (rows: number[]) => new Tensor('int64', BigInt64Array.from(rows, BigInt), [1, rows.length]);
      // No stop ids (an empty list, not the config's): all three generators run exactly NEW_TOKENS steps.
      const seq = (await model.generate({
        input_ids: ids(p),
        attention_mask: ids(p.map(() => 1)),
        max_new_tokens: NEW_TOKENS,
        do_sample: false,
        eos_token_id: [],
      })) as Tensor;
      out.push((seq.tolist() as bigint[][])[0].slice(p.length).map(Number));
    }
    return out;
  } finally {
    await model.dispose();
  }
}

/** PyTorch's greedy continuation from an HF folder holding the same weights. */
function pytorchGreedy(hfDir: string, prompts: number[][]): number[][] {
  const work = tmp.make('envace-pt-');
  writeFileSync(join(work, 'ids.json'), JSON.stringify(prompts));
  const py = spawnSync(PYTHON, [REFERENCE, hfDir, join(work, 'ids.json'), join(work, 'out.json'), '--greedy', String(NEW_TOKENS)], { encoding: 'utf8' });
  expect(py.status, `exports_reference.py failed:\n${py.stderr}`).toBe(0);
  return JSON.parse(readFileSync(join(work, 'out.json'), 'utf8')) as number[][];
}

async function ourGreedy(config: ModelConfig, weights: Params, prompts: number[][]): Promise<number[][]> {
  const generator = await Generator.create(config);
  try {
    return (await generator.generate(weights, prompts, { maxNewTokens: NEW_TOKENS, temperature: 0 })).map((g) => g.tokens);
  } finally {
    await generator.release();
  }
}

/** Smallest top-1 − top-2 gap along our greedy path (each pick checked to be the top-1). */
async function smallestMargin(config: ModelConfig, weights: Params, prompts: number[][], tokens: number[][]): Promise<number> {
  const V = config.vocabSize;
  let smallest = Infinity;
  for (const [b, prompt] of prompts.entries()) {
    const logits = await ourLogits(config, weights, [[...prompt, ...tokens[b]]]);
    for (let k = 0; k < tokens[b].length; k++) {
      const at = logits.subarray((prompt.length - 1 + k) * V, (prompt.length + k) * V);
      const sorted = Float32Array.from(at).sort().reverse();
      expect(at[tokens[b][k]]).toBe(sorted[0]);
      smallest = Math.min(smallest, sorted[0] - sorted[1]);
    }
  }
  return smallest;
}

/** The three-way check: ours (tokens and margin) = transformers.js on the ONNX folder = PyTorch on the HF folder. */
async function expectSameGreedy(o: { config: ModelConfig; weights: Params; onnxDir: string; hfDir: string; prompts: number[][] }): Promise<number[][]> {
  const ours = await ourGreedy(o.config, o.weights, o.prompts);
  expect(ours.every((t) => t.length === NEW_TOKENS)).toBe(true);
  expect(await smallestMargin(o.config, o.weights, o.prompts, ours)).toBeGreaterThan(MIN_MARGIN);
  expect(await transformersJsGreedy(o.onnxDir, o.prompts), 'transformers.js vs our Generator').toEqual(ours);
  if (HAS_TORCH) expect(pytorchGreedy(o.hfDir, o.prompts), 'PyTorch vs our Generator').toEqual(ours);
  return ours;
}

/** Both exports of the same model: ONNX (under test) and HF (what the PyTorch reference reads). */
async function exportBoth(m: { config: ModelConfig; weights: Params }): Promise<{ onnxDir: string; hfDir: string }> {
  const root = tmp.make();
  const onnxDir = join(root, 'onnx-export');
  const hfDir = join(root, 'hf-export');
  await exportModel({ ...m, tokenizer: smallTokenizer(), format: 'onnx', outDir: onnxDir });
  await exportModel({ ...m, tokenizer: smallTokenizer(), format: 'hf', outDir: hfDir });
  return { onnxDir, hfDir };
}

/** Train briefly on the corpus and save a run checkpoint as the training loop lays it out (model/ + tokenizer/). */
async function trainedRunCheckpoint(config: ModelConfig): Promise<string> {
  const trainer = await trainedOnCorpus(config, 40);
  const dir = join(tmp.make(), 'step-40');
  trainer.save(join(dir, 'model'));
  await trainer.release();
  mkdirSync(join(dir, 'tokenizer'), { recursive: true });
  smallTokenizer().save(join(dir, 'tokenizer'));
  return dir;
}

const tok = smallTokenizer();
const PROMPTS = [tok.encode('the cat'), tok.encode('open the box, take'), tok.encode('door key rome')];

describe('ONNX export loaded by transformers.js (AutoModelForCausalLM, local folder)', () => {
  it('random Llama-style model: transformers.js, our Generator and PyTorch pick the same tokens', async () => {
    const config = nanoConfig();
    const weights = randomWeights(config, 21);
    const dirs = await exportBoth({ config, weights });
    const tokens = await expectSameGreedy({ config, weights, ...dirs, prompts: PROMPTS });
    console.log(`random Llama greedy tokens (all three loaders): ${JSON.stringify(tokens)}`);
  });

  it("a trained run's checkpoint exports to a model transformers.js runs as our Generator does", async () => {
    const m = loadRunCheckpoint(await trainedRunCheckpoint(nanoConfig()));
    const dirs = await exportBoth(m);
    const tokens = await expectSameGreedy({ ...m, ...dirs, prompts: PROMPTS });
    console.log(`trained run greedy tokens (all three loaders): ${JSON.stringify(tokens)}`);
  });

  it('a LoRA run exports merged: transformers.js on the merged weights = our Generator on base + adapters', async () => {
    const m = loadRunCheckpoint(await trainedRunCheckpoint(nanoConfig({ lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'up_proj'] } })));
    expect(m.config.lora).toBeDefined();
    const dirs = await exportBoth(m);
    await expectSameGreedy({ ...m, ...dirs, prompts: PROMPTS });
  });

  it('an imported Qwen3-style model (q/k norm, head dim ≠ width / heads) exports and runs the same', async () => {
    const source = nanoConfig({ qkNorm: true, headDim: 32, ropeTheta: 1e6, tiedEmbeddings: false });
    const hfDir = join(tmp.make(), 'qwen3ish');
    exportHfFolder(hfDir, { shape: hfShapeFromConfig(source), weights: hfWeightsFromParams(source, randomWeights(source, 23)), tokenizer: tok, modelCard: '' });
    const modelsDir = join(tmp.make(), 'models');
    await importModel({ hfDir, name: 'qwen3ish', modelsDir });
    const m = loadModel(modelsDir, 'qwen3ish');
    const onnxDir = join(tmp.make(), 'onnx-export');
    await exportModel({ config: m.config, weights: m.weights, tokenizer: m.tokenizer, format: 'onnx', outDir: onnxDir });
    expect(JSON.parse(readFileSync(join(onnxDir, 'config.json'), 'utf8'))).toMatchObject({ model_type: 'qwen3', head_dim: 32 });
    await expectSameGreedy({ config: m.config, weights: m.weights, onnxDir, hfDir, prompts: PROMPTS });
  });

  it('weights in onnx/model.onnx_data (the > 2 GB layout) load through config.json and give the same tokens', async () => {
    const config = nanoConfig();
    const weights = randomWeights(config, 21);
    const root = tmp.make();
    const onnxDir = join(root, 'external');
    // The 2 GiB threshold lowered to 0, so this small model takes the large-model path.
    exportOnnxFolder(onnxDir, { config, weights, shape: hfShapeFromConfig(config), tokenizer: tok, modelCard: '', externalDataAbove: 0 });
    expect(existsSync(join(onnxDir, 'onnx', 'model.onnx_data'))).toBe(true);
    const hfDir = join(root, 'hf');
    await exportModel({ config, weights, tokenizer: tok, format: 'hf', outDir: hfDir });
    await expectSameGreedy({ config, weights, onnxDir, hfDir, prompts: PROMPTS });
  });
});
