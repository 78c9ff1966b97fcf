// Every parameter gradient of a small transformer (all features on: GQA, q/k/v bias, q/k norm,
// untied head, padding) against central finite differences in float64. Independent of PyTorch.
import { describe, expect, it } from 'vitest';
import { resolveConfig, paramSpecs } from '../../../../native-models/transformer/config';
import { buildTrainStepGraph } from '../../../../native-models/transformer/graphs';
import { compile, ortTensor, randomArray, rng, run } from '../support';

const config = resolveConfig({ vocabSize: 11, dModel: 8, nLayers: 1, nHeads: 4, nKvHeads: 2, dFf: 12, maxSeqLen: 16, tiedEmbeddings: false, qkvBias: true, qkNorm: true });
const LORA = resolveConfig({ tiedEmbeddings: true, qkvBias: false, qkNorm: false, lora: { rank: 2, alpha: 3, targets: ['k_proj', 'o_proj', 'up_proj'] } }, config);
const [B, T] = [2, 4];
const H = 1e-6;

async function gradcheck(c: typeof config, seed: number) {
  const rand = rng(seed);
  const g = buildTrainStepGraph(c, { pg: { aggregation: 'token-mean', kl: 'k3' }, sft: { aggregation: 'seq-mean-token-mean' }, worldModel: { kind: 'cmae' } }, { dtype: 'float64' });
  const session = await compile(g);
  const specs = paramSpecs(c, 'float64');
  const params = new Map(specs.map((s) => [s.name, randomArray(s.shape.reduce((a, b) => a * b, 1), rand, -0.5, 0.5).map((v) => (s.name.endsWith('norm.weight') ? 1 + v : v))]));
  const ints = (f: () => number) => Array.from({ length: B * T }, f);
  const fixed: Record<string, ReturnType<typeof ortTensor>> = {
    input_ids: ortTensor('int64', ints(() => Math.floor(rand() * c.vocabSize)), [B, T]),
    targets: ortTensor('int64', ints(() => Math.floor(rand() * c.vocabSize)), [B, T]),
    attention_mask: ortTensor('int64', [1, 1, 1, 1, 1, 1, 1, 0], [B, T]),
    position_ids: ortTensor('int64', [0, 1, 2, 3, 0, 1, 2, 3], [B, T]),
    pg_mask: ortTensor('float64', [1, 1, 0, 1, 1, 1, 1, 0], [B, T]),
    sft_mask: ortTensor('float64', [0, 1, 1, 1, 1, 0, 1, 0], [B, T]),
    wm_weight: ortTensor('float64', [0, 0, 0.5, 0.5, 0, 0.3, 0.3, 0], [B, T]),
    advantages: ortTensor('float64', ints(() => 2 * rand() - 1), [B, T]),
    old_logprobs: ortTensor('float64', ints(() => -Math.log(c.vocabSize) + 0.4 * (rand() - 0.5)), [B, T]),
    ref_logprobs: ortTensor('float64', ints(() => -Math.log(c.vocabSize) + 0.4 * (rand() - 0.5)), [B, T]),
  };
  const scalars = { pg_norm: 6, sft_norm: 2, clip_low: 0.2, clip_high: 0.2, dual_clip: 1.5, kl_beta: 0.3, sft_coef: 0.7, wm_coef: 0.9, cmae_rho: 0.5 };
  for (const [k, v] of Object.entries(scalars)) fixed[k] = ortTensor('float64', [v], []);
  const feeds = (p: Map<string, number[]>) => ({ ...fixed, ...Object.fromEntries(specs.map((s) => [s.name, ortTensor('float64', p.get(s.name)!, s.shape)])) });
  const out = await run(session, feeds(params));
  let checked = 0;
  for (const s of specs.filter((x) => x.trainable)) {
    const analytic = out[`grad.${s.name}`];
    const values = params.get(s.name)!;
    for (let j = 0; j < values.length; j++) {
      const at = async (d: number) => {
        const p = new Map(params);
        p.set(s.name, values.map((v, k) => (k === j ? v + d : v)));
        return (await run(session, feeds(p))).loss[0];
      };
      const numeric = ((await at(H)) - (await at(-H))) / (2 * H);
      expect(Math.abs(analytic[j] - numeric), `${s.name}[${j}]: ${analytic[j]} vs ${numeric}`).toBeLessThan(1e-7 + 1e-5 * Math.abs(numeric));
      checked++;
    }
  }
  return checked;
}

describe('whole-model gradients vs finite differences (float64)', () => {
  it('full fine-tuning: every parameter of a GQA + bias + q/k-norm + untied model', async () => {
    expect(await gradcheck(config, 21)).toBe(paramSpecs(config).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0));
  });
  it('LoRA: every adapter parameter of a tied model', async () => {
    expect(await gradcheck(LORA, 22)).toBe(paramSpecs(LORA).filter((s) => s.trainable).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0));
  });
});
