// Golden structure of the compiled nano train step: a change in the op histogram must be reviewed
// and this table updated on purpose. Plus the layout rule: weights never pass through a Transpose.
import { describe, expect, it } from 'vitest';
import { opHistogram, toOnnxBytes } from '../../../../native-models/graph/serialize';
import { verifyGraph } from '../../../../native-models/graph/verify';
import { eliminateDeadCode } from '../../../../native-models/graph/passes';
import { PRESETS } from '../../../../native-models/presets';
import { paramSpecs } from '../../../../native-models/transformer/config';
import { buildLogprobsGraph, buildOptimizerGraph, buildTrainStepGraph } from '../../../../native-models/transformer/graphs';

const GOLDEN_NANO_SFT = {
  nodes: 486,
  ops: {
    Add: 47, Cast: 7, Concat: 26, ConstantOfShape: 3, Cos: 1, Div: 32, Exp: 2, Expand: 10, Gather: 3, GatherElements: 1,
    Gemm: 45, Identity: 25, LogSoftmax: 1, MatMul: 12, Mul: 90, Neg: 16, Pad: 8, ReduceMean: 5, ReduceSum: 19, Reshape: 30,
    ScatterElements: 1, ScatterND: 1, Shape: 24, Sigmoid: 2, Sin: 1, Size: 10, Slice: 8, Softmax: 2, Split: 4, Sqrt: 5,
    Squeeze: 4, Sub: 7, Transpose: 24, Trilu: 1, Unsqueeze: 9,
  },
};

describe('compiled graphs', () => {
  it('nano SFT train step matches the golden op histogram and node count', () => {
    const g = buildTrainStepGraph(PRESETS.nano, { sft: { aggregation: 'token-mean' } });
    eliminateDeadCode(g); // what compileGraph serialises
    expect({ nodes: g.nodes.length, ops: opHistogram(g) }).toEqual(GOLDEN_NANO_SFT);
  });

  it('consumes weights only through Gemm (transB), Gather, Mul and Shape: no Transpose of a weight', () => {
    const c = PRESETS.nano;
    const g = buildTrainStepGraph(c, { pg: { aggregation: 'token-mean', kl: 'k3' }, sft: { aggregation: 'token-mean' }, worldModel: { kind: 'cmae' } });
    const weights = new Set(paramSpecs(c).map((s) => s.name));
    const consumers = new Set(g.nodes.filter((n) => n.inputs.some((i) => weights.has(i))).map((n) => n.op));
    expect([...consumers].sort()).toEqual(['Gather', 'Gemm', 'Mul', 'Shape']);
    const forwardGemms = g.nodes.filter((n) => n.op === 'Gemm' && weights.has(n.inputs[1]) && !n.name.startsWith('grad.'));
    forwardGemms.forEach((n) => expect(n.attrs.transB, n.name).toBe(1));
  });

  it('declares one gradient output per trainable parameter, and none for frozen ones under LoRA', () => {
    const c = { ...PRESETS.nano, lora: { rank: 2, alpha: 2, targets: ['q_proj' as const] } };
    const g = buildTrainStepGraph(c, { sft: { aggregation: 'token-mean' } });
    const grads = g.outputs.map((o) => o.name).filter((n) => n.startsWith('grad.'));
    expect(grads).toEqual(paramSpecs(c).filter((s) => s.trainable).map((s) => `grad.${s.name}`));
    expect(grads).toHaveLength(2 * c.nLayers);
  });

  it('logprobs and optimizer graphs verify and serialise; an empty objective is rejected', () => {
    for (const g of [buildLogprobsGraph(PRESETS.nano), buildOptimizerGraph(paramSpecs(PRESETS.nano))]) {
      verifyGraph(g);
      expect(toOnnxBytes(g).byteLength).toBeGreaterThan(0);
    }
    expect(() => buildTrainStepGraph(PRESETS.nano, {})).toThrow(/needs at least one loss term/);
  });
});
