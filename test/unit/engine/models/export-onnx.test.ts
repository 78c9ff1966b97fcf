// The ONNX export's folder against what Hugging Face Optimum writes for `text-generation-with-past`
// (and transformers.js expects): the files, and the graph's input / output names, dtypes and dims
// read back from the protobuf. Running it is test/parity/exports.parity.test.ts (onnxruntime) and
// test/integration/onnx-transformersjs.test.ts (transformers.js).
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import { afterAll, describe, expect, it } from 'vitest';
import { ENVACE_CHAT_TEMPLATE, type ModelConfig, countParams, exportOnnxFolder, headDim } from '../../../../native-models';
import { hfShapeFromConfig } from '../../../../electron/engine/models/convert';
import { exportModel } from '../../../../electron/engine/models/export';
import { nanoConfig, randomWeights, smallTokenizer, tempDirs } from './fixtures';

const tmp = tempDirs();
afterAll(tmp.cleanup);

/** The files of an Optimum text-generation export (plus our model card), by path. */
const OPTIMUM_FILES = [
  'README.md',
  'config.json',
  'generation_config.json',
  'onnx/model.onnx',
  'special_tokens_map.json',
  'tokenizer.json',
  'tokenizer_config.json',
];

const INT64 = onnxProto.onnx.TensorProto.DataType.INT64;
const FLOAT = onnxProto.onnx.TensorProto.DataType.FLOAT;
const BATCH = 'batch_size';
const SEQ = 'sequence_length';
const PAST = 'past_sequence_length';
const TOTAL = 'past_sequence_length + sequence_length';

type Io = [name: string, dtype: number, dims: (string | number)[]];

/** Optimum's `text-generation-with-past` interface for a config, in Optimum's order. */
function optimumInterface(c: ModelConfig): { inputs: Io[]; outputs: Io[] } {
  const kv = (prefix: string, len: string): Io[] =>
    Array.from({ length: c.nLayers }, (_, i) =>
      (['key', 'value'] as const).map((kind): Io => [`${prefix}.${i}.${kind}`, FLOAT, [BATCH, c.nKvHeads, len, headDim(c)]]),
    ).flat();
  return {
    inputs: [
      ['input_ids', INT64, [BATCH, SEQ]],
      ['attention_mask', INT64, [BATCH, TOTAL]],
      ['position_ids', INT64, [BATCH, SEQ]],
      ...kv('past_key_values', PAST),
    ],
    outputs: [['logits', FLOAT, [BATCH, SEQ, c.vocabSize]], ...kv('present', TOTAL)],
  };
}

function readInterface(path: string): { inputs: Io[]; outputs: Io[]; initialisers: onnxProto.onnx.ITensorProto[] } {
  const m = onnxProto.onnx.ModelProto.decode(readFileSync(path));
  const io = (v: onnxProto.onnx.IValueInfoProto): Io => {
    const t = v.type!.tensorType!;
    return [v.name!, t.elemType!, t.shape!.dim!.map((d) => (d.dimParam ? d.dimParam : Number(d.dimValue)))];
  };
  return { inputs: m.graph!.input!.map(io), outputs: m.graph!.output!.map(io), initialisers: m.graph!.initializer! };
}

const json = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;

describe('ONNX export in Optimum layout', () => {
  const variants: [string, ModelConfig][] = [
    ['Llama (nano: tied, GQA 4/2)', nanoConfig()],
    ['Qwen3-style (q/k norm, head dim 32, untied)', nanoConfig({ qkNorm: true, headDim: 32, tiedEmbeddings: false })],
  ];
  for (const [label, config] of variants) {
    it(`${label}: Optimum's files, input/output names, dtypes and dim names`, async () => {
      const out = join(tmp.make(), 'onnx');
      const res = await exportModel({ config, weights: randomWeights(config), tokenizer: smallTokenizer(), format: 'onnx', outDir: out });
      expect(res.files.map((f) => f.name)).toEqual(OPTIMUM_FILES);
      expect(res.files.every((f) => f.bytes > 0)).toBe(true);

      const got = readInterface(join(out, 'onnx', 'model.onnx'));
      const want = optimumInterface(config);
      expect(got.inputs).toEqual(want.inputs);
      expect(got.outputs).toEqual(want.outputs);
      // Weights are inside model.onnx: no parameter left as an input, every one an initialiser.
      const initialised = got.initialisers.reduce((n, t) => n + (t.rawData?.byteLength ?? 0), 0);
      expect(initialised).toBeGreaterThanOrEqual(4 * countParams(config));

      const cfg = json(out, 'config.json');
      expect(cfg).toMatchObject({ num_hidden_layers: config.nLayers, num_key_value_heads: config.nKvHeads, head_dim: headDim(config), vocab_size: config.vocabSize });
      expect(cfg['transformers.js_config']).toBeUndefined(); // no external data at this size
      expect(json(out, 'generation_config.json')).toMatchObject({ eos_token_id: smallTokenizer().eosTokenId });
      expect(json(out, 'tokenizer_config.json').chat_template).toBe(ENVACE_CHAT_TEMPLATE);
      expect(json(out, 'special_tokens_map.json')).toEqual({
        eos_token: '<|end|>',
        pad_token: '<|pad|>',
        additional_special_tokens: json(out, 'tokenizer_config.json').additional_special_tokens,
      });
      expect(readFileSync(join(out, 'README.md'), 'utf8')).toMatch(/^library_name: transformers\.js$/m);
    });
  }

  it('force replaces a previous ONNX export (its onnx/ folder included) with another format', async () => {
    const config = nanoConfig();
    const out = join(tmp.make(), 'again');
    await exportModel({ config, weights: randomWeights(config), tokenizer: smallTokenizer(), format: 'onnx', outDir: out });
    const res = await exportModel({ config, weights: randomWeights(config), tokenizer: smallTokenizer(), format: 'gguf', outDir: out, force: true });
    expect(res.files.map((f) => f.name)).toEqual(['README.md', 'model-f32.gguf']);
  });

  it('past the size limit the weights go to onnx/model.onnx_data, named in config.json for transformers.js', () => {
    const config = nanoConfig();
    const out = join(tmp.make(), 'external');
    exportOnnxFolder(out, { config, weights: randomWeights(config), shape: hfShapeFromConfig(config), tokenizer: smallTokenizer(), modelCard: '', externalDataAbove: 0 });
    const dataBytes = statSync(join(out, 'onnx', 'model.onnx_data')).size;
    // Every matrix moves out; only the norm vectors (under 1 KiB, like ORT's own small constants) stay.
    expect(dataBytes).toBeGreaterThan(0.95 * 4 * countParams(config));
    expect(statSync(join(out, 'onnx', 'model.onnx')).size).toBeLessThan(dataBytes / 4);
    expect(json(out, 'config.json')['transformers.js_config']).toEqual({ use_external_data_format: { 'model.onnx': 1 } });
    const { inputs, initialisers } = readInterface(join(out, 'onnx', 'model.onnx'));
    expect(inputs).toEqual(optimumInterface(config).inputs);
    const external = initialisers.filter((t) => t.dataLocation === onnxProto.onnx.TensorProto.DataLocation.EXTERNAL);
    expect(external.map((t) => t.name)).toContain('model.embed_tokens.weight');
    expect(initialisers.filter((t) => t.dataLocation !== onnxProto.onnx.TensorProto.DataLocation.EXTERNAL).every((t) => t.rawData!.byteLength < 1024)).toBe(true);
    for (const t of external) {
      const kv = Object.fromEntries(t.externalData!.map((e) => [e.key, e.value]));
      expect(kv.location).toBe('model.onnx_data');
      expect(Number(kv.offset) % 64).toBe(0);
      expect(Number(kv.offset) + Number(kv.length)).toBeLessThanOrEqual(dataBytes);
    }
  });
});
