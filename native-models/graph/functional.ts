// Ops as functions over tensors. Each is a thin wrapper over `Graph.op`; numbers become scalar
// constants of the other operand's dtype so `mul(x, 0.5)` reads like maths.
import type { Tensor } from './builder';
import type { OpType } from './ops';
import { type DType, type Dim, type Shape, GraphError } from './types';

type Operand = Tensor | number;

function lift(a: Operand, b: Operand): [Tensor, Tensor] {
  if (typeof a === 'number' && typeof b === 'number') throw new GraphError('at least one operand must be a tensor');
  const ref = (typeof a === 'number' ? b : a) as Tensor;
  const asT = (v: Operand) => (typeof v === 'number' ? ref.graph.scalar(v, ref.dtype) : v);
  return [asT(a), asT(b)];
}

const bin = (op: OpType) => (a: Operand, b: Operand): Tensor => {
  const [x, y] = lift(a, b);
  return x.graph.op1(op, [x, y]);
};
const un = (op: OpType) => (x: Tensor): Tensor => x.graph.op1(op, [x]);

export const add = bin('Add');
export const sub = bin('Sub');
export const mul = bin('Mul');
export const div = bin('Div');
export const pow = bin('Pow');
export const minimum = bin('Min');
export const maximum = bin('Max');
export const equal = bin('Equal');
export const less = bin('Less');
export const lessOrEqual = bin('LessOrEqual');
export const greater = bin('Greater');
export const neg = un('Neg');
export const sqrt = un('Sqrt');
export const reciprocal = un('Reciprocal');
export const exp = un('Exp');
export const log = un('Log');
export const sigmoid = un('Sigmoid');
export const tanh = un('Tanh');
export const cos = un('Cos');
export const sin = un('Sin');
export const not = un('Not');
export const identity = un('Identity');

/** Same values, but the autodiff walker treats the result as a constant. */
export function stopGradient(x: Tensor): Tensor {
  const y = identity(x);
  x.graph.stopGradient.add(y.name);
  return y;
}

export const softmax = (x: Tensor, axis = -1) => x.graph.op1('Softmax', [x], { axis });
export const logSoftmax = (x: Tensor, axis = -1) => x.graph.op1('LogSoftmax', [x], { axis });

const reducer = (op: OpType) => (x: Tensor, axes?: number[], keepdims = true): Tensor =>
  x.graph.op1(op, [x, axes ? x.graph.constant(axes, 'int64') : undefined], { keepdims: keepdims ? 1 : 0 });
export const reduceSum = reducer('ReduceSum');
export const reduceMean = reducer('ReduceMean');
export const reduceMax = reducer('ReduceMax');

export const cast = (x: Tensor, to: DType) => (x.dtype === to ? x : x.graph.op1('Cast', [x], { to }));
export const where = (c: Tensor, a: Operand, b: Operand) => {
  const [x, y] = lift(a, b);
  return c.graph.op1('Where', [c, x, y]);
};
export const clip = (x: Tensor, lo?: Operand, hi?: Operand) => {
  const s = (v?: Operand) => (v === undefined ? undefined : typeof v === 'number' ? x.graph.scalar(v, x.dtype) : v);
  return x.graph.op1('Clip', [x, s(lo), s(hi)]);
};

export const matmul = (a: Tensor, b: Tensor) => a.graph.op1('MatMul', [a, b]);

export interface GemmOptions {
  transA?: boolean;
  transB?: boolean;
  alpha?: number;
  beta?: number;
}
/** alpha·op(A)·op(B) + beta·C on 2-D operands; transB=true multiplies by an [out,in] weight without a Transpose node. */
export function gemm(a: Tensor, b: Tensor, c?: Tensor, o: GemmOptions = {}): Tensor {
  const attrs: Record<string, number> = {};
  if (o.transA) attrs.transA = 1;
  if (o.transB) attrs.transB = 1;
  if (o.alpha !== undefined && o.alpha !== 1) attrs.alpha = o.alpha;
  if (o.beta !== undefined && o.beta !== 1) attrs.beta = o.beta;
  return a.graph.op1('Gemm', [a, b, c], attrs);
}

export const reshape = (x: Tensor, dims: Shape) => x.graph.op1('Reshape', [x, x.graph.shapeTensor(dims)], {}, { hint: dims });
/** Reshape to the run-time shape of `like` (used by gradients, where shapes are symbolic). */
export const reshapeLike = (x: Tensor, like: Tensor) =>
  x.graph.op1('Reshape', [x, x.graph.op1('Shape', [like])], {}, { hint: like.shape });
export const transpose = (x: Tensor, perm: number[]) => x.graph.op1('Transpose', [x], { perm });
export const unsqueeze = (x: Tensor, axes: number[]) => x.graph.op1('Unsqueeze', [x, x.graph.constant(axes, 'int64')]);
export const squeeze = (x: Tensor, axes: number[]) => x.graph.op1('Squeeze', [x, x.graph.constant(axes, 'int64')]);
export const expand = (x: Tensor, dims: Shape) => x.graph.op1('Expand', [x, x.graph.shapeTensor(dims)], {}, { hint: dims });
export const expandLike = (x: Tensor, like: Tensor) =>
  x.graph.op1('Expand', [x, x.graph.op1('Shape', [like])], {}, { hint: like.shape });
export const concat = (xs: Tensor[], axis: number) => xs[0].graph.op1('Concat', xs, { axis });
export const split = (x: Tensor, sizes: number[], axis: number) => x.graph.op('Split', [x, x.graph.constant(sizes, 'int64')], { axis });
export function slice(x: Tensor, axis: number, start: number, end: number): Tensor {
  const g = x.graph;
  return g.op1('Slice', [x, g.constant([start], 'int64'), g.constant([end], 'int64'), g.constant([axis], 'int64')]);
}
export const pad = (x: Tensor, pads: number[]) => x.graph.op1('Pad', [x, x.graph.constant(pads, 'int64')]);
export const gather = (x: Tensor, idx: Tensor, axis = 0) => x.graph.op1('Gather', [x, idx], { axis });
export const gatherElements = (x: Tensor, idx: Tensor, axis: number) => x.graph.op1('GatherElements', [x, idx], { axis });
export const scatterNDAdd = (x: Tensor, idx: Tensor, upd: Tensor) => x.graph.op1('ScatterND', [x, idx, upd], { reduction: 'add' });
export const scatterElementsAdd = (x: Tensor, idx: Tensor, upd: Tensor, axis: number) =>
  x.graph.op1('ScatterElements', [x, idx, upd], { axis, reduction: 'add' });
export const shapeOf = (x: Tensor) => x.graph.op1('Shape', [x]);
export const sizeOf = (x: Tensor) => x.graph.op1('Size', [x]);
export const trilu = (x: Tensor, upper: boolean, k = 0) => x.graph.op1('Trilu', [x, x.graph.constant([k], 'int64', [])], { upper: upper ? 1 : 0 });

/** 0, 1, ..., n-1 as int64 where n is a (possibly symbolic) dim. */
export function arange(g: Tensor['graph'], n: Dim): Tensor {
  const limit = g.op1('Squeeze', [g.shapeTensor([n]), g.constant([0], 'int64')]);
  return g.op1('Range', [g.scalar(0, 'int64'), limit, g.scalar(1, 'int64')], {}, { hint: [n] });
}

/** A tensor of `value` with the run-time shape of `like`. */
export function fullLike(like: Tensor, value: number, dtype: DType = like.dtype): Tensor {
  return like.graph.op1('ConstantOfShape', [shapeOf(like)], { value: { dtype, value } }, { hint: like.shape });
}
