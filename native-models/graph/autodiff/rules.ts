// One vector-Jacobian rule per op. A rule sees the forward inputs `x`, outputs `y` and output
// gradients `dy`, and returns one gradient per input (or undefined). Rules may return gradients in
// the broadcast output shape: the walker alone un-broadcasts them to each input's shape.
import type { NodeDef, Tensor } from '../builder';
import * as F from '../functional';
import type { OpType } from '../ops';
import { GraphError } from '../types';

export interface VjpContext {
  readonly node: NodeDef;
  readonly x: readonly Tensor[];
  readonly y: readonly Tensor[];
  /** Gradient of each output; zeros for outputs that received none. */
  dy(i?: number): Tensor;
  /** Whether input `i` needs a gradient (skip building ones nobody reads). */
  wants(i: number): boolean;
}

export type Vjp = (c: VjpContext) => (Tensor | undefined)[];

/** Ops whose outputs carry no gradient: shapes, comparisons, index and mask generators. */
export const NON_DIFFERENTIABLE: ReadonlySet<OpType> = new Set<OpType>([
  'Shape', 'Size', 'Equal', 'Less', 'LessOrEqual', 'Greater', 'Not', 'Range', 'ConstantOfShape',
]);

const attr = (c: VjpContext, k: string, dflt: number): number => Number(c.node.attrs[k] ?? dflt);
const intConst = (t: Tensor): number[] => {
  const v = t.graph.constantValue(t);
  if (!v) throw new GraphError(`expected a build-time constant for '${t.name}'`);
  return v;
};
const norm = (axis: number, rank: number) => (axis < 0 ? axis + rank : axis);
const reducedAxes = (c: VjpContext): number[] =>
  c.x[1] ? intConst(c.x[1]).map((a) => norm(a, c.x[0].rank)) : c.x[0].shape.map((_, i) => i);

/** Output gradient of a reduction, broadcast back over the input's shape. */
function expandReduced(c: VjpContext): Tensor {
  const keep = attr(c, 'keepdims', 1) === 1;
  const dy = keep ? c.dy() : F.unsqueeze(c.dy(), [...reducedAxes(c)].sort((a, b) => a - b));
  return F.expandLike(dy, c.x[0]);
}

const swapLast = (t: Tensor) => F.transpose(t, [...t.shape.keys()].map((i, _, a) => (i < a.length - 2 ? i : 2 * a.length - 3 - i)));

export const RULES = new Map<OpType, Vjp>([
  ['Identity', (c) => [c.dy()]],
  ['Add', (c) => [c.dy(), c.dy()]],
  ['Sub', (c) => [c.dy(), c.wants(1) ? F.neg(c.dy()) : undefined]],
  ['Mul', (c) => [c.wants(0) ? F.mul(c.dy(), c.x[1]) : undefined, c.wants(1) ? F.mul(c.dy(), c.x[0]) : undefined]],
  ['Div', (c) => [
    c.wants(0) ? F.div(c.dy(), c.x[1]) : undefined,
    c.wants(1) ? F.neg(F.div(F.mul(c.dy(), c.y[0]), c.x[1])) : undefined,
  ]],
  ['Pow', (c) => [
    c.wants(0) ? F.mul(c.dy(), F.mul(c.x[1], F.pow(c.x[0], F.sub(c.x[1], 1)))) : undefined,
    c.wants(1) ? F.mul(c.dy(), F.mul(c.y[0], F.log(c.x[0]))) : undefined,
  ]],
  ['Neg', (c) => [F.neg(c.dy())]],
  ['Sqrt', (c) => [F.div(F.mul(c.dy(), 0.5), c.y[0])]],
  ['Reciprocal', (c) => [F.neg(F.mul(c.dy(), F.mul(c.y[0], c.y[0])))]],
  ['Exp', (c) => [F.mul(c.dy(), c.y[0])]],
  ['Log', (c) => [F.div(c.dy(), c.x[0])]],
  ['Sigmoid', (c) => [F.mul(c.dy(), F.mul(c.y[0], F.sub(1, c.y[0])))]],
  ['Tanh', (c) => [F.mul(c.dy(), F.sub(1, F.mul(c.y[0], c.y[0])))]],
  // Min/Max: the input that was selected gets the gradient (ties go to the first input).
  ['Cos', (c) => [F.neg(F.mul(c.dy(), F.sin(c.x[0])))]],
  ['Sin', (c) => [F.mul(c.dy(), F.cos(c.x[0]))]],
  ['Min', (c) => minMax(c)],
  ['Max', (c) => minMax(c)],
  // Clip passes the gradient where the input was inside [min, max] (bounds included, as PyTorch).
  ['Clip', (c) => [F.where(F.equal(c.x[0], c.y[0]), c.dy(), 0)]],
  ['Where', (c) => [undefined, c.wants(1) ? F.where(c.x[0], c.dy(), 0) : undefined, c.wants(2) ? F.where(c.x[0], 0, c.dy()) : undefined]],
  ['Cast', (c) => [F.cast(c.dy(), c.x[0].dtype)]],
  ['Softmax', (c) => {
    const axis = attr(c, 'axis', -1);
    const y = c.y[0];
    return [F.mul(y, F.sub(c.dy(), F.reduceSum(F.mul(c.dy(), y), [axis])))];
  }],
  ['LogSoftmax', (c) => [F.sub(c.dy(), F.mul(F.exp(c.y[0]), F.reduceSum(c.dy(), [attr(c, 'axis', -1)])))]],
  ['ReduceSum', (c) => [expandReduced(c)]],
  ['ReduceMean', (c) => {
    const count = F.cast(F.div(F.sizeOf(c.x[0]), F.sizeOf(c.y[0])), c.x[0].dtype);
    return [F.div(expandReduced(c), count)];
  }],
  // ReduceMax: the gradient flows to every position equal to the maximum.
  ['ReduceMax', (c) => {
    const keep = attr(c, 'keepdims', 1) === 1;
    const yk = keep ? c.y[0] : F.unsqueeze(c.y[0], [...reducedAxes(c)].sort((a, b) => a - b));
    return [F.where(F.equal(c.x[0], yk), expandReduced(c), 0)];
  }],
  ['MatMul', (c) => {
    const [a, b] = c.x;
    if (a.rank === 2 && b.rank === 2)
      return [c.wants(0) ? F.gemm(c.dy(), b, undefined, { transB: true }) : undefined, c.wants(1) ? F.gemm(a, c.dy(), undefined, { transA: true }) : undefined];
    return [c.wants(0) ? F.matmul(c.dy(), swapLast(b)) : undefined, c.wants(1) ? F.matmul(swapLast(a), c.dy()) : undefined];
  }],
  ['Gemm', (c) => {
    // Y = alpha·op(A)·op(B) + beta·C; gradients keep the trans flags instead of adding Transpose nodes.
    const [tA, tB] = [attr(c, 'transA', 0) === 1, attr(c, 'transB', 0) === 1];
    const [alpha, beta] = [attr(c, 'alpha', 1), attr(c, 'beta', 1)];
    const [a, b] = c.x;
    const dy = c.dy();
    const dA = !c.wants(0) ? undefined : tA
      ? F.gemm(b, dy, undefined, { transA: tB, transB: true, alpha })
      : F.gemm(dy, b, undefined, { transB: !tB, alpha });
    const dB = !c.wants(1) ? undefined : tB
      ? F.gemm(dy, a, undefined, { transA: true, transB: tA, alpha })
      : F.gemm(a, dy, undefined, { transA: !tA, alpha });
    const dC = c.x[2] && c.wants(2) ? (beta === 1 ? dy : F.mul(dy, beta)) : undefined;
    return [dA, dB, dC];
  }],
  ['Reshape', (c) => [F.reshapeLike(c.dy(), c.x[0]), undefined]],
  ['Transpose', (c) => {
    const perm = (c.node.attrs.perm as number[] | undefined) ?? [...c.x[0].shape.keys()].reverse();
    const inv: number[] = [];
    perm.forEach((p, i) => (inv[p] = i));
    return [F.transpose(c.dy(), inv)];
  }],
  ['Expand', (c) => [c.dy(), undefined]],
  ['Unsqueeze', (c) => [F.squeeze(c.dy(), intConst(c.x[1]).map((a) => norm(a, c.y[0].rank))), undefined]],
  ['Squeeze', (c) => [F.unsqueeze(c.dy(), intConst(c.x[1]).map((a) => norm(a, c.x[0].rank))), undefined]],
  ['Slice', (c) => {
    // Zero-pad the gradient back to the input's extent on each sliced axis.
    const x = c.x[0];
    const starts = intConst(c.x[1]);
    const axes = c.x[3] ? intConst(c.x[3]) : starts.map((_, i) => i);
    const pads = new Array<number>(2 * x.rank).fill(0);
    axes.forEach((ax, i) => {
      const a = norm(ax, x.rank);
      const n = x.shape[a] as number;
      const start = Math.min(Math.max(starts[i] < 0 ? starts[i] + n : starts[i], 0), n);
      pads[a] = start;
      pads[a + x.rank] = n - start - (c.y[0].shape[a] as number);
    });
    return [F.pad(c.dy(), pads)];
  }],
  ['Pad', (c) => {
    const pads = intConst(c.x[1]);
    let dy = c.dy();
    c.x[0].shape.forEach((d, a) => {
      if (pads[a] !== 0 || pads[a + c.x[0].rank] !== 0) dy = F.slice(dy, a, pads[a], pads[a] + (d as number));
    });
    return [dy];
  }],
  ['Concat', (c) => {
    const axis = norm(attr(c, 'axis', 0), c.y[0].rank);
    const sizes = c.x.map((t) => t.shape[axis]);
    if (sizes.some((s) => typeof s !== 'number')) throw new GraphError(`Concat gradient needs fixed sizes on axis ${axis} (node ${c.node.name})`);
    return c.x.length === 1 ? [c.dy()] : F.split(c.dy(), sizes as number[], axis);
  }],
  ['Split', (c) => [F.concat(c.y.map((_, i) => c.dy(i)), attr(c, 'axis', 0)), undefined]],
  ['Gather', (c) => {
    if (norm(attr(c, 'axis', 0), c.x[0].rank) !== 0) throw new GraphError(`Gather gradient supports axis 0 only (node ${c.node.name})`);
    const idx = F.unsqueeze(F.cast(c.x[1], 'int64'), [-1]);
    return [F.scatterNDAdd(F.fullLike(c.x[0], 0), idx, c.dy()), undefined];
  }],
  ['GatherElements', (c) => [F.scatterElementsAdd(F.fullLike(c.x[0], 0), c.x[1], c.dy(), attr(c, 'axis', 0)), undefined]],
  ['Trilu', (c) => [c.x[0].graph.op1('Trilu', [c.dy(), c.x[1]], c.node.attrs), undefined]],
]);

function minMax(c: VjpContext): (Tensor | undefined)[] {
  const firstWins = F.equal(c.x[0], c.y[0]);
  return [c.wants(0) ? F.where(firstWins, c.dy(), 0) : undefined, c.wants(1) ? F.where(firstWins, 0, c.dy()) : undefined];
}
