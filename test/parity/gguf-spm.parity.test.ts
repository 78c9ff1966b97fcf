// A SentencePiece ("llama") GGUF tokenizer imported as tokenizer.json must tokenize as llama.cpp does on the same
// file. No small real file has one, so the file is built here: a tiny Llama (our exporter) whose tokenizer.ggml.*
// is a SentencePiece BPE vocabulary trained below (pieces with scores, byte tokens <0x00>…<0xFF> for fallback,
// <unk>/<s>/</s>), loaded by llama.cpp through node-llama-cpp.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getLlama, type LlamaModel, LlamaLogLevel } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importGgufModel, loadModel, type LoadedModel } from '../../electron/engine/models';
import type { HostTensor } from '../../native-models/io/dtype';
import { encodeGguf, gguf } from '../../native-models/io/gguf';
import { hfToGguf } from '../../native-models/io/gguf-export';
import type { HfModelShape } from '../../native-models/io/hf-config';
import { expectedHfTensors } from '../../native-models/io/hf-tensors';
import { trainTokenizer } from '../../native-models/tokenizer/text-tokenizer';
import { tempDirs } from '../unit/engine/models/fixtures';

const tmp = tempDirs();
const CORPUS = [
  'the order was delivered to the customer in rome',
  'the customer cancelled the order before delivery',
  'please update the address of the order',
  'delivered orders cannot be cancelled by the customer',
];

/** A SentencePiece-style BPE vocabulary: characters, then the most frequent adjacent pairs within "▁"-words, scored by rank. */
function trainSentencePiece(corpus: string[], merges: number): { tokens: string[]; scores: number[]; types: number[] } {
  const tokens = ['<unk>', '<s>', '</s>', ...Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`)];
  const scores = tokens.map(() => 0);
  const types = [2, 3, 3, ...Array.from({ length: 256 }, () => 6)];
  let words = corpus.flatMap((s) => s.split(' ').map((w) => [...`\u2581${w}`]));
  for (const c of new Set(words.flat())) {
    tokens.push(c);
    scores.push(-1000 - tokens.length);
    types.push(1);
  }
  for (let m = 0; m < merges; m++) {
    const counts = new Map<string, number>();
    for (const w of words) for (let i = 0; i + 1 < w.length; i++) counts.set(`${w[i]}\u0000${w[i + 1]}`, (counts.get(`${w[i]}\u0000${w[i + 1]}`) ?? 0) + 1);
    const best = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
    if (!best) break;
    const [l, r] = best[0].split('\u0000');
    tokens.push(l + r);
    scores.push(-m);
    types.push(1);
    words = words.map((w) => {
      const out: string[] = [];
      for (let i = 0; i < w.length; i++) {
        if (i + 1 < w.length && w[i] === l && w[i + 1] === r) out.push(l + w[++i]);
        else out.push(w[i]);
      }
      return out;
    });
  }
  return { tokens, scores, types };
}

const spm = trainSentencePiece(CORPUS, 120);
// Overlapping pieces whose scores decide the split: "xyz" is x + yz (yz scores higher than xy), never xy + z.
for (const [piece, score] of [['x', -2000], ['y', -2000], ['z', -2000], ['xy', 5], ['yz', 10], ['\u2581x', 1]] as const) {
  if (spm.tokens.includes(piece)) continue;
  spm.tokens.push(piece);
  spm.scores.push(score);
  spm.types.push(1);
}
let ours: LoadedModel;
let theirs: LlamaModel;

beforeAll(async () => {
  const shape: HfModelShape = { vocabSize: spm.tokens.length, dModel: 32, nLayers: 1, nHeads: 2, nKvHeads: 1, dFf: 64, ropeTheta: 10000, normEps: 1e-5, tiedEmbeddings: true, qkvBias: false, qkNorm: false, maxSeqLen: 64, headDim: 16 };
  const weights = new Map<string, HostTensor>(expectedHfTensors(shape).map((t) => [t.name, { dtype: 'F32', shape: t.shape, data: new Float32Array(t.shape.reduce((a, b) => a * b, 1)).fill(0.01) }]));
  // The exporter's byte-level tokenizer keys are replaced by the SentencePiece ones.
  const bpe = trainTokenizer(CORPUS, { vocabSize: 280 });
  const file = hfToGguf({ shape, weights, tokenizer: { json: { ...bpe.json, added_tokens: [] }, eosTokenId: 2 } });
  for (const key of [...file.metadata.keys()]) if (key.startsWith('tokenizer.')) file.metadata.delete(key);
  file.metadata.set('tokenizer.ggml.model', gguf.str('llama'));
  file.metadata.set('tokenizer.ggml.tokens', gguf.array('string', spm.tokens));
  file.metadata.set('tokenizer.ggml.scores', gguf.array('f32', spm.scores));
  file.metadata.set('tokenizer.ggml.token_type', gguf.array('i32', spm.types));
  file.metadata.set('tokenizer.ggml.bos_token_id', gguf.u32(1));
  file.metadata.set('tokenizer.ggml.eos_token_id', gguf.u32(2));
  file.metadata.set('tokenizer.ggml.unknown_token_id', gguf.u32(0));
  file.metadata.set('tokenizer.ggml.add_bos_token', gguf.bool(false));
  const path = join(tmp.make(), 'spm.gguf');
  writeFileSync(path, encodeGguf(file));
  const modelsDir = tmp.make();
  await importGgufModel({ ggufFile: path, modelsDir, name: 'spm' });
  ours = loadModel(modelsDir, 'spm');
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
  theirs = await llama.loadModel({ modelPath: path });
});
afterAll(async () => {
  await theirs?.dispose();
  tmp.cleanup();
});

describe('SentencePiece GGUF tokenizer against llama.cpp', () => {
  it("gives llama.cpp's ids on corpus text, unseen words, byte fallback, space runs and special-token text", () => {
    const texts = [
      ...CORPUS,
      ...CORPUS.map((s) => s.toUpperCase()),
      'the ordered customers were undelivered',
      'zebra quartz jinx',
      'café 日本 😀',
      '  two leading spaces',
      'trailing  ',
      'tabs\tand\nnewlines',
      'order<s>the customer</s> again',
      '</s>',
      'x',
      '123 4567',
      'xyz',
      'wxyzx xyzzy',
    ];
    const differing = texts.filter((t) => JSON.stringify(ours.tokenizer.encode(t)) !== JSON.stringify([...theirs.tokenize(t, true)]));
    expect(differing.map((t) => `${JSON.stringify(t)}: ours ${JSON.stringify(ours.tokenizer.encode(t))} llama.cpp ${JSON.stringify([...theirs.tokenize(t, true)])}`)).toEqual([]);
    expect(ours.tokenizer.encode('xyz').map((id) => spm.tokens[id])).toEqual(['\u2581x', 'yz']);
    // Merged pieces are used, not only characters.
    expect(ours.tokenizer.encode(CORPUS[0]).length).toBeLessThan(CORPUS[0].length / 2);
    for (const t of texts.slice(0, 8)) expect(ours.tokenizer.decode(ours.tokenizer.encode(t))).toBe(t);
  });
});
