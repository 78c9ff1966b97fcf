// Every VJP rule against central finite differences in float64, run through ONNX Runtime.
// Each case is data: input shapes (broadcasting included) and a forward function.
import { describe, expect, it } from 'vitest';
import { Graph, type Tensor } from '../../../../native-models/graph/builder';
import * as F from '../../../../native-models/graph/functional';
import { grad } from '../../../../native-models/graph/autodiff/grad';
import { RULES, NON_DIFFERENTIABLE } from '../../../../native-models/graph/autodiff/rules';
import { OPS } from '../../../../native-models/graph/ops';
import { compile, ortTensor, randomArray, rng, run, staticShape } from '../support';

interface InputSpec {
  shape: number[];
  /** Value range; positive ranges keep Log/Sqrt/Pow defined. */
  range?: [number, number];
}
interface Case {
  name: string;
  inputs: InputSpec[];
  build: (xs: Tensor[]) => Tensor;
  /** Ops this case exercises (checked below: every rule is covered by some case). */
  covers: string[];
}

const C = (name: string, covers: string[], inputs: InputSpec[], build: Case['build']): Case => ({ name, covers, inputs, build });
const pos: [number, number] = [0.5, 2];

const CASES: Case[] = [
  C('add broadcast row', ['Add'], [{ shape: [2, 3] }, { shape: [3] }], ([a, b]) => F.add(a, b)),
  C('sub broadcast both', ['Sub'], [{ shape: [2, 1, 3] }, { shape: [4, 1] }], ([a, b]) => F.sub(a, b)),
  C('mul broadcast col', ['Mul'], [{ shape: [2, 3] }, { shape: [2, 1] }], ([a, b]) => F.mul(a, b)),
  C('div broadcast', ['Div'], [{ shape: [3, 4] }, { shape: [4], range: pos }], ([a, b]) => F.div(a, b)),
  C('pow both inputs', ['Pow'], [{ shape: [2, 3], range: pos }, { shape: [3] }], ([a, b]) => F.pow(a, b)),
  C('neg', ['Neg'], [{ shape: [5] }], ([a]) => F.neg(a)),
  C('sqrt', ['Sqrt'], [{ shape: [2, 3], range: pos }], ([a]) => F.sqrt(a)),
  C('reciprocal', ['Reciprocal'], [{ shape: [4], range: pos }], ([a]) => F.reciprocal(a)),
  C('exp', ['Exp'], [{ shape: [2, 2] }], ([a]) => F.exp(a)),
  C('log', ['Log'], [{ shape: [3], range: pos }], ([a]) => F.log(a)),
  C('sigmoid', ['Sigmoid'], [{ shape: [2, 3], range: [-3, 3] }], ([a]) => F.sigmoid(a)),
  C('tanh', ['Tanh'], [{ shape: [2, 3], range: [-2, 2] }], ([a]) => F.tanh(a)),
  C('cos', ['Cos'], [{ shape: [5], range: [-3, 3] }], ([a]) => F.cos(a)),
  C('sin', ['Sin'], [{ shape: [5], range: [-3, 3] }], ([a]) => F.sin(a)),
  C('min broadcast', ['Min'], [{ shape: [3, 4] }, { shape: [4] }], ([a, b]) => F.minimum(a, b)),
  C('max broadcast', ['Max'], [{ shape: [3, 1] }, { shape: [3, 4] }], ([a, b]) => F.maximum(a, b)),
  C('clip', ['Clip'], [{ shape: [12], range: [-2, 2] }], ([a]) => F.clip(a, -0.7, 0.9)),
  C('where broadcast', ['Where', 'Greater'], [{ shape: [2, 3] }, { shape: [3] }], ([a, b]) => F.where(F.greater(a, 0), a, b)),
  C('identity + cast round trip', ['Identity', 'Cast'], [{ shape: [3] }], ([a]) => F.cast(F.identity(a), 'float64')),
  C('softmax axis 1', ['Softmax'], [{ shape: [2, 4, 3] }], ([a]) => F.softmax(a, 1)),
  C('logsoftmax last', ['LogSoftmax'], [{ shape: [3, 5] }], ([a]) => F.logSoftmax(a, -1)),
  C('reduce sum drop', ['ReduceSum'], [{ shape: [2, 3, 4] }], ([a]) => F.reduceSum(a, [1], false)),
  C('reduce mean keep', ['ReduceMean'], [{ shape: [2, 3, 4] }], ([a]) => F.reduceMean(a, [0, 2], true)),
  C('reduce max drop', ['ReduceMax'], [{ shape: [3, 4] }], ([a]) => F.reduceMax(a, [-1], false)),
  C('matmul 2d', ['MatMul'], [{ shape: [3, 4] }, { shape: [4, 2] }], ([a, b]) => F.matmul(a, b)),
  C('matmul batched broadcast', ['MatMul'], [{ shape: [2, 3, 4] }, { shape: [4, 5] }], ([a, b]) => F.matmul(a, b)),
  C('matmul 4d broadcast', ['MatMul'], [{ shape: [2, 1, 3, 4] }, { shape: [3, 4, 2] }], ([a, b]) => F.matmul(a, b)),
  ...[false, true].flatMap((transA) =>
    [false, true].map((transB) =>
      C(`gemm transA=${transA} transB=${transB} with C`, ['Gemm'],
        [{ shape: transA ? [4, 3] : [3, 4] }, { shape: transB ? [5, 4] : [4, 5] }, { shape: [5] }],
        ([a, b, c]) => F.gemm(a, b, c, { transA, transB, alpha: 0.7, beta: 1.3 })),
    ),
  ),
  C('reshape', ['Reshape'], [{ shape: [2, 6] }], ([a]) => F.reshape(a, [3, 2, 2])),
  C('transpose', ['Transpose'], [{ shape: [2, 3, 4] }], ([a]) => F.transpose(a, [2, 0, 1])),
  C('slice', ['Slice'], [{ shape: [3, 6] }], ([a]) => F.slice(a, 1, 1, -2)),
  C('concat', ['Concat'], [{ shape: [2, 3] }, { shape: [2, 1] }], ([a, b]) => F.concat([a, b, a], 1)),
  C('split both halves', ['Split'], [{ shape: [2, 5] }], ([a]) => {
    const [p, q] = F.split(a, [2, 3], 1);
    return F.concat([F.mul(p, 2), F.exp(q)], 1);
  }),
  C('split one half unused', ['Split'], [{ shape: [4, 2] }], ([a]) => F.split(a, [1, 3], 0)[1]),
  C('unsqueeze', ['Unsqueeze'], [{ shape: [2, 3] }], ([a]) => F.unsqueeze(a, [0, -1])),
  C('squeeze', ['Squeeze'], [{ shape: [2, 1, 3] }], ([a]) => F.squeeze(a, [1])),
  C('expand', ['Expand'], [{ shape: [3, 1] }], ([a]) => F.expand(a, [2, 3, 4])),
  C('pad', ['Pad'], [{ shape: [2, 3] }], ([a]) => F.pad(a, [1, 0, 0, 2])),
  C('gather rows with repeats', ['Gather'], [{ shape: [5, 3] }], ([a]) => F.gather(a, a.graph.constant([4, 0, 4, 2, 0, 0], 'int64', [2, 3]))),
  C('gather elements', ['GatherElements'], [{ shape: [3, 4] }], ([a]) =>
    F.gatherElements(a, a.graph.constant([1, 1, 3, 0, 0, 2], 'int64', [3, 2]), 1)),
  C('trilu lower', ['Trilu'], [{ shape: [4, 4] }], ([a]) => F.trilu(a, false)),
  C('fan-out sums', ['Mul', 'Add'], [{ shape: [2, 3] }], ([a]) => F.add(F.mul(a, a), F.exp(a))),
  C('rms-norm composite', ['ReduceMean', 'Sqrt', 'Div'], [{ shape: [2, 3, 4] }, { shape: [4] }], ([x, w]) =>
    F.mul(F.div(x, F.sqrt(F.add(F.reduceMean(F.mul(x, x), [-1]), 1e-5))), w)),
];

/** Random broadcast-compatible shape pairs for every elementwise binary op (seeded, so reproducible). */
function randomBroadcastCases(seed: number): Case[] {
  const rand = rng(seed);
  const pick = (n: number) => Math.floor(rand() * n);
  const ops: [string, (a: Tensor, b: Tensor) => Tensor, [number, number]?][] = [
    ['Add', F.add], ['Sub', F.sub], ['Mul', F.mul], ['Div', F.div, pos], ['Pow', F.pow, pos], ['Min', F.minimum], ['Max', F.maximum],
  ];
  return ops.map(([op, fn, range]) => {
    const full = Array.from({ length: 1 + pick(3) }, () => 2 + pick(2));
    // Each operand keeps a random suffix of the full shape with random axes collapsed to 1.
    const operand = () => full.slice(pick(full.length)).map((d) => (rand() < 0.4 ? 1 : d));
    const [sa, sb] = [operand(), operand()];
    return C(`${op} random broadcast [${sa}] vs [${sb}] (seed ${seed})`, [op], [{ shape: sa, range }, { shape: sb, range }], ([a, b]) => fn(a, b));
  });
}
CASES.push(...[1, 2, 3].flatMap(randomBroadcastCases));

const H = 1e-6;

async function checkCase(c: Case, seed: number) {
  const rand = rng(seed);
  const g = new Graph(c.name.replace(/\W+/g, '_'));
  const xs = c.inputs.map((s, i) => g.input(`x${i}`, 'float64', s.shape));
  const y = c.build(xs);
  const weights = randomArray(staticShape(y).reduce((a, b) => a * b, 1), rand);
  const loss = F.reduceSum(F.mul(y, g.constant(weights, 'float64', staticShape(y))), undefined, false);
  g.output(loss, 'loss');
  grad(loss, xs).forEach((gx, i) => g.output(gx, `grad_x${i}`));
  const session = await compile(g);
  const values = c.inputs.map((s) => randomArray(s.shape.reduce((a, b) => a * b, 1), rand, ...(s.range ?? [-1, 1])));
  const feedsFor = (vals: number[][]) => Object.fromEntries(vals.map((v, i) => [`x${i}`, ortTensor('float64', v, c.inputs[i].shape)]));
  const out = await run(session, feedsFor(values));
  for (let i = 0; i < values.length; i++) {
    const numeric: number[] = [];
    for (let j = 0; j < values[i].length; j++) {
      const at = async (delta: number) => {
        const v = values.map((a) => a.slice());
        v[i][j] += delta;
        return (await run(session, feedsFor(v))).loss[0];
      };
      numeric.push(((await at(H)) - (await at(-H))) / (2 * H));
    }
    const analytic = out[`grad_x${i}`];
    expect(analytic.length, `${c.name}: grad_x${i} size`).toBe(numeric.length);
    analytic.forEach((a, j) => {
      expect(Math.abs(a - numeric[j]), `${c.name}: d/dx${i}[${j}] analytic ${a} vs numeric ${numeric[j]}`).toBeLessThan(1e-6 + 1e-6 * Math.abs(numeric[j]));
    });
  }
}

describe('VJP rules vs central finite differences (float64, ORT)', () => {
  CASES.forEach((c, k) => it(c.name, () => checkCase(c, 1000 + k)));

  it('covers every op that has a rule, and every op is either differentiable or listed as not', () => {
    const covered = new Set(CASES.flatMap((c) => c.covers));
    for (const op of RULES.keys()) expect(covered.has(op), `no finite-difference case for ${op}`).toBe(true);
    const unaccounted = Object.keys(OPS).filter((op) => !RULES.has(op as never) && !NON_DIFFERENTIABLE.has(op as never));
    // Scatter ops only appear inside gradients (embedding backward); they have no rule on purpose.
    expect(unaccounted.sort()).toEqual(['ScatterElements', 'ScatterND']);
  });
});

describe('grad walker', () => {
  it('stops at stopGradient and returns zeros for inputs the loss does not reach', async () => {
    const g = new Graph('stop');
    const [a, b, unused] = [g.input('a', 'float64', [3]), g.input('b', 'float64', [3]), g.input('u', 'float64', [2])];
    const loss = F.reduceSum(F.mul(F.stopGradient(a), b), undefined, false);
    const [ga, gb, gu] = grad(loss, [a, b, unused]);
    g.output(ga, 'ga');
    g.output(gb, 'gb');
    g.output(gu, 'gu');
    const out = await run(await compile(g), {
      a: ortTensor('float64', [1, 2, 3], [3]),
      b: ortTensor('float64', [4, 5, 6], [3]),
      u: ortTensor('float64', [7, 8], [2]),
    });
    expect(out.ga).toEqual([0, 0, 0]);
    expect(out.gb).toEqual([1, 2, 3]);
    expect(out.gu).toEqual([0, 0]);
  });

  it('differentiates through symbolic batch dims resolved at run time', async () => {
    const g = new Graph('symbolic');
    const x = g.input('x', 'float64', ['B', 'T', 2]);
    const w = g.input('w', 'float64', [2, 3]);
    const flat = F.reshape(x, ['B*T', 2]);
    const loss = F.reduceMean(F.matmul(flat, w), undefined, false);
    const [gw] = grad(loss, [w]);
    g.output(gw, 'gw');
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    const out = await run(await compile(g), { x: ortTensor('float64', xs, [2, 3, 2]), w: ortTensor('float64', [0, 0, 0, 0, 0, 0], [2, 3]) });
    // d mean(XW) / dW[k][j] = sum_i X[i][k] / (rows * 3)
    const col = (k: number) => xs.filter((_, i) => i % 2 === k).reduce((p, q) => p + q, 0) / 18;
    expect(out.gw.map((v) => +v.toFixed(12))).toEqual([col(0), col(0), col(0), col(1), col(1), col(1)].map((v) => +v.toFixed(12)));
  });

  it('ignores integer paths (indices) and names ops without a rule', () => {
    const g = new Graph('norule');
    const x = g.input('x', 'float64', [4, 2]);
    const idx = g.constant([0, 3], 'int64', [2, 1]);
    const y = F.scatterNDAdd(x, idx, g.constant([1, 1, 1, 1], 'float64', [2, 2]));
    const loss = F.reduceSum(y, undefined, false);
    expect(() => grad(loss, [x])).toThrow(/no VJP rule for ScatterND \(node ScatterND_\d+\)/);
  });

  it('rejects a non-scalar loss', () => {
    const g = new Graph('nonscalar');
    const x = g.input('x', 'float64', [4]);
    expect(() => grad(F.exp(x), [x])).toThrow(/loss must be a float scalar/);
  });

  it('emits MatMul weight gradients as Gemm with trans flags, not Transpose nodes', () => {
    const g = new Graph('gemm_grads');
    const x = g.input('x', 'float32', ['N', 8]);
    const w = g.input('w', 'float32', [4, 8]);
    const loss = F.reduceSum(F.gemm(x, w, undefined, { transB: true }), undefined, false);
    const before = g.nodes.length;
    grad(loss, [x, w]);
    const added = g.nodes.slice(before).map((n) => n.op);
    expect(added).not.toContain('Transpose');
    expect(added.filter((op) => op === 'Gemm')).toHaveLength(2);
  });
});
