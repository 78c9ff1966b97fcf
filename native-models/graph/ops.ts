// Every ONNX op the builder may emit, listed once: arity, attribute kinds and the shape/dtype rule.
// Opset 18 throughout: Reduce* take `axes` as an input, Split takes `num_outputs`/`split` input,
// ScatterND/ScatterElements support reduction="add".
import { type Attrs, type DType, type Dim, type Shape, GraphError, formatShape, isFloat } from './types';

export const OPSET = 18;

export type AttrKind = 'int' | 'ints' | 'float' | 'string' | 'dtype' | 'tensor';

export interface TensorType {
  readonly dtype: DType;
  readonly shape: Shape;
}

export interface InferContext {
  /** Input types; `undefined` for an omitted optional input. */
  readonly inputs: readonly (TensorType | undefined)[];
  readonly attrs: Attrs;
  /** Integer values of input `i` when it is a build-time constant. */
  constant(i: number): number[] | undefined;
  /** Output shape supplied by the caller for ops whose shape comes from a runtime tensor. */
  readonly hint?: Shape;
}

export interface OpSpec {
  readonly inputs: readonly [min: number, max: number];
  readonly attrs: Readonly<Record<string, AttrKind>>;
  infer(ctx: InferContext): TensorType[];
}

const fail = (msg: string): never => {
  throw new GraphError(msg);
};

const input = (ctx: InferContext, i: number): TensorType =>
  ctx.inputs[i] ?? fail(`input ${i} is required`);

function normAxis(axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) fail(`axis ${axis} out of range for rank ${rank}`);
  return a;
}

/** Numpy-style broadcasting of two shapes; symbols broadcast only against an equal symbol or 1. */
export function broadcast(a: Shape, b: Shape): Dim[] {
  const rank = Math.max(a.length, b.length);
  const out: Dim[] = [];
  for (let i = 0; i < rank; i++) {
    const da = a[a.length - rank + i] ?? 1;
    const db = b[b.length - rank + i] ?? 1;
    if (da === db || db === 1) out.push(da);
    else if (da === 1) out.push(db);
    else fail(`cannot broadcast ${formatShape(a)} with ${formatShape(b)}`);
  }
  return out;
}

function sameDtype(ctx: InferContext, n: number): DType {
  const d = input(ctx, 0).dtype;
  for (let i = 1; i < n; i++) {
    const t = ctx.inputs[i];
    if (t && t.dtype !== d) fail(`dtype mismatch: input 0 is ${d}, input ${i} is ${t.dtype}`);
  }
  return d;
}

function requireFloat(ctx: InferContext): DType {
  const d = input(ctx, 0).dtype;
  if (!isFloat(d)) fail(`expects a float tensor, got ${d}`);
  return d;
}

const unaryFloat: OpSpec = {
  inputs: [1, 1],
  attrs: {},
  infer: (ctx) => [{ dtype: requireFloat(ctx), shape: input(ctx, 0).shape }],
};

const binary = (out: 'same' | 'bool'): OpSpec => ({
  inputs: [2, 2],
  attrs: {},
  infer: (ctx) => {
    const dtype = sameDtype(ctx, 2);
    return [{ dtype: out === 'bool' ? 'bool' : dtype, shape: broadcast(input(ctx, 0).shape, input(ctx, 1).shape) }];
  },
});

const reduce: OpSpec = {
  inputs: [1, 2],
  attrs: { keepdims: 'int' },
  infer: (ctx) => {
    const x = input(ctx, 0);
    const keep = (ctx.attrs.keepdims ?? 1) === 1;
    const given = ctx.inputs[1] ? ctx.constant(1) : undefined;
    if (ctx.inputs[1] && !given) fail('axes must be a build-time constant');
    const axes = new Set((given ?? x.shape.map((_, i) => i)).map((a) => normAxis(a, x.shape.length)));
    const shape: Dim[] = [];
    x.shape.forEach((d, i) => {
      if (!axes.has(i)) shape.push(d);
      else if (keep) shape.push(1);
    });
    return [{ dtype: x.dtype, shape }];
  },
};

const softmaxLike: OpSpec = {
  inputs: [1, 1],
  attrs: { axis: 'int' },
  infer: (ctx) => {
    normAxis(Number(ctx.attrs.axis ?? -1), input(ctx, 0).shape.length);
    return [{ dtype: requireFloat(ctx), shape: input(ctx, 0).shape }];
  },
};

/** Shape from a constant shape input, else from the caller's hint. */
function shapeFromInput(ctx: InferContext, i: number, what: string): Shape {
  if (ctx.hint) return ctx.hint;
  const c = ctx.constant(i);
  if (!c) fail(`${what} needs a constant shape or a shape hint`);
  if (c!.some((d) => d < 0)) fail(`${what} with -1 needs a shape hint`);
  return c!;
}

function staticDim(d: Dim, what: string): number {
  if (typeof d !== 'number') fail(`${what} needs a fixed size, got symbol '${d}'`);
  return d as number;
}

export const OPS = {
  Identity: { inputs: [1, 1], attrs: {}, infer: (ctx) => [input(ctx, 0)] },
  Add: binary('same'),
  Sub: binary('same'),
  Mul: binary('same'),
  Div: binary('same'),
  Pow: binary('same'),
  Min: binary('same'),
  Max: binary('same'),
  Equal: binary('bool'),
  Less: binary('bool'),
  LessOrEqual: binary('bool'),
  Greater: binary('bool'),
  Neg: unaryFloat,
  Sqrt: unaryFloat,
  Reciprocal: unaryFloat,
  Exp: unaryFloat,
  Log: unaryFloat,
  Sigmoid: unaryFloat,
  Tanh: unaryFloat,
  Cos: unaryFloat,
  Sin: unaryFloat,
  Not: {
    inputs: [1, 1],
    attrs: {},
    infer: (ctx) => {
      if (input(ctx, 0).dtype !== 'bool') fail('Not expects bool');
      return [input(ctx, 0)];
    },
  },
  Softmax: softmaxLike,
  LogSoftmax: softmaxLike,
  ReduceSum: reduce,
  ReduceMean: reduce,
  ReduceMax: reduce,
  Cast: {
    inputs: [1, 1],
    attrs: { to: 'dtype' },
    infer: (ctx) => [{ dtype: ctx.attrs.to as DType, shape: input(ctx, 0).shape }],
  },
  Where: {
    inputs: [3, 3],
    attrs: {},
    infer: (ctx) => {
      const [c, x, y] = [input(ctx, 0), input(ctx, 1), input(ctx, 2)];
      if (c.dtype !== 'bool') fail(`condition must be bool, got ${c.dtype}`);
      if (x.dtype !== y.dtype) fail(`branches differ in dtype: ${x.dtype} vs ${y.dtype}`);
      return [{ dtype: x.dtype, shape: broadcast(broadcast(c.shape, x.shape), y.shape) }];
    },
  },
  Clip: {
    inputs: [1, 3],
    attrs: {},
    infer: (ctx) => {
      const x = input(ctx, 0);
      for (const i of [1, 2]) {
        const b = ctx.inputs[i];
        if (b && (b.shape.length !== 0 || b.dtype !== x.dtype)) fail(`Clip bound ${i} must be a ${x.dtype} scalar`);
      }
      return [x];
    },
  },
  MatMul: {
    inputs: [2, 2],
    attrs: {},
    infer: (ctx) => {
      const dtype = sameDtype(ctx, 2);
      const [a, b] = [input(ctx, 0).shape, input(ctx, 1).shape];
      if (a.length < 2 || b.length < 2) fail(`MatMul needs rank >= 2, got ${formatShape(a)} x ${formatShape(b)}`);
      const [m, k1] = a.slice(-2);
      const [k2, n] = b.slice(-2);
      if (k1 !== k2) fail(`inner dims differ: ${formatShape(a)} x ${formatShape(b)}`);
      return [{ dtype, shape: [...broadcast(a.slice(0, -2), b.slice(0, -2)), m, n] }];
    },
  },
  Gemm: {
    inputs: [2, 3],
    attrs: { transA: 'int', transB: 'int', alpha: 'float', beta: 'float' },
    infer: (ctx) => {
      const dtype = sameDtype(ctx, 3);
      const [a, b] = [input(ctx, 0).shape, input(ctx, 1).shape];
      if (a.length !== 2 || b.length !== 2) fail(`Gemm needs 2-D inputs, got ${formatShape(a)} and ${formatShape(b)}`);
      const [m, ka] = ctx.attrs.transA ? [a[1], a[0]] : [a[0], a[1]];
      const [kb, n] = ctx.attrs.transB ? [b[1], b[0]] : [b[0], b[1]];
      if (ka !== kb) fail(`inner dims differ: A${formatShape(a)} B${formatShape(b)} (transA=${ctx.attrs.transA ?? 0}, transB=${ctx.attrs.transB ?? 0})`);
      const c = ctx.inputs[2];
      if (c && broadcast(c.shape, [m, n]).join() !== [m, n].join()) fail(`C ${formatShape(c.shape)} does not broadcast to [${m},${n}]`);
      return [{ dtype, shape: [m, n] }];
    },
  },
  Reshape: {
    inputs: [2, 2],
    attrs: {},
    infer: (ctx) => {
      const x = input(ctx, 0);
      const shape = shapeFromInput(ctx, 1, 'Reshape');
      const size = (s: Shape) => (s.every((d) => typeof d === 'number') ? (s as number[]).reduce((p, d) => p * d, 1) : undefined);
      const [from, to] = [size(x.shape), size(shape)];
      if (from !== undefined && to !== undefined && from !== to) fail(`cannot reshape ${formatShape(x.shape)} to ${formatShape(shape)}`);
      return [{ dtype: x.dtype, shape }];
    },
  },
  Transpose: {
    inputs: [1, 1],
    attrs: { perm: 'ints' },
    infer: (ctx) => {
      const x = input(ctx, 0);
      const perm = (ctx.attrs.perm as number[] | undefined) ?? x.shape.map((_, i) => x.shape.length - 1 - i);
      if (perm.length !== x.shape.length || [...perm].sort().some((p, i) => p !== i)) fail(`bad perm [${perm}] for rank ${x.shape.length}`);
      return [{ dtype: x.dtype, shape: perm.map((p) => x.shape[p]) }];
    },
  },
  Slice: {
    inputs: [3, 5],
    attrs: {},
    infer: (ctx) => {
      const x = input(ctx, 0);
      const [starts, ends] = [ctx.constant(1), ctx.constant(2)];
      const axes = ctx.inputs[3] ? ctx.constant(3) : starts?.map((_, i) => i);
      const steps = ctx.inputs[4] ? ctx.constant(4) : starts?.map(() => 1);
      if (!starts || !ends || !axes || !steps) fail('Slice needs constant starts/ends/axes/steps');
      const shape = [...x.shape];
      axes!.forEach((ax, i) => {
        const a = normAxis(ax, x.shape.length);
        if (steps![i] !== 1) fail('Slice supports step 1 only');
        const n = staticDim(x.shape[a], `Slice on axis ${a}`);
        const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + n : v, 0), n);
        shape[a] = Math.max(clamp(ends![i]) - clamp(starts![i]), 0);
      });
      return [{ dtype: x.dtype, shape }];
    },
  },
  Concat: {
    inputs: [1, Infinity],
    attrs: { axis: 'int' },
    infer: (ctx) => {
      const first = input(ctx, 0);
      const rank = first.shape.length;
      const axis = normAxis(Number(ctx.attrs.axis), rank);
      const dtype = sameDtype(ctx, ctx.inputs.length);
      let total: Dim | undefined;
      ctx.inputs.forEach((t, i) => {
        const s = t!.shape;
        if (s.length !== rank || s.some((d, j) => j !== axis && d !== first.shape[j])) fail(`input ${i} ${formatShape(s)} does not match ${formatShape(first.shape)} off axis ${axis}`);
        const d = s[axis];
        // Symbolic sizes add up as text ('P' + 'T' → 'P+T'); a zero-size part contributes nothing.
        if (total === undefined || total === 0) total = d;
        else if (d !== 0) total = typeof total === 'number' && typeof d === 'number' ? total + d : `${total}+${d}`;
      });
      const shape = [...first.shape];
      shape[axis] = total!;
      return [{ dtype, shape }];
    },
  },
  Split: {
    inputs: [2, 2],
    attrs: { axis: 'int' },
    infer: (ctx) => {
      const x = input(ctx, 0);
      const axis = normAxis(Number(ctx.attrs.axis ?? 0), x.shape.length);
      const sizes = ctx.constant(1) ?? fail('Split sizes must be a constant');
      const n = staticDim(x.shape[axis], 'Split');
      if (sizes.reduce((a, b) => a + b, 0) !== n) fail(`Split sizes [${sizes}] do not sum to ${n}`);
      return sizes.map((s) => ({ dtype: x.dtype, shape: x.shape.map((d, i) => (i === axis ? s : d)) }));
    },
  },
  Unsqueeze: {
    inputs: [2, 2],
    attrs: {},
    infer: (ctx) => {
      const x = input(ctx, 0);
      const rank = x.shape.length + (ctx.constant(1) ?? fail('axes must be constant')).length;
      const axes = new Set(ctx.constant(1)!.map((a) => normAxis(a, rank)));
      const rest = [...x.shape];
      return [{ dtype: x.dtype, shape: Array.from({ length: rank }, (_, i) => (axes.has(i) ? 1 : rest.shift()!)) }];
    },
  },
  Squeeze: {
    inputs: [2, 2],
    attrs: {},
    infer: (ctx) => {
      const x = input(ctx, 0);
      const axes = new Set((ctx.constant(1) ?? fail('axes must be constant')).map((a) => normAxis(a, x.shape.length)));
      for (const a of axes) if (x.shape[a] !== 1) fail(`cannot squeeze axis ${a} of ${formatShape(x.shape)}`);
      return [{ dtype: x.dtype, shape: x.shape.filter((_, i) => !axes.has(i)) }];
    },
  },
  Expand: {
    inputs: [2, 2],
    attrs: {},
    infer: (ctx) => {
      const x = input(ctx, 0);
      return [{ dtype: x.dtype, shape: broadcast(x.shape, shapeFromInput(ctx, 1, 'Expand')) }];
    },
  },
  Pad: {
    inputs: [2, 3],
    attrs: { mode: 'string' },
    infer: (ctx) => {
      const x = input(ctx, 0);
      const pads = ctx.constant(1) ?? fail('pads must be constant');
      const r = x.shape.length;
      return [{ dtype: x.dtype, shape: x.shape.map((d, i) => (pads[i] === 0 && pads[i + r] === 0 ? d : staticDim(d, 'Pad') + pads[i] + pads[i + r])) }];
    },
  },
  Gather: {
    inputs: [2, 2],
    attrs: { axis: 'int' },
    infer: (ctx) => {
      const [x, idx] = [input(ctx, 0), input(ctx, 1)];
      if (idx.dtype !== 'int64' && idx.dtype !== 'int32') fail(`indices must be int64/int32, got ${idx.dtype}`);
      const a = normAxis(Number(ctx.attrs.axis ?? 0), x.shape.length);
      return [{ dtype: x.dtype, shape: [...x.shape.slice(0, a), ...idx.shape, ...x.shape.slice(a + 1)] }];
    },
  },
  GatherElements: {
    inputs: [2, 2],
    attrs: { axis: 'int' },
    infer: (ctx) => {
      const [x, idx] = [input(ctx, 0), input(ctx, 1)];
      if (idx.dtype !== 'int64') fail(`indices must be int64, got ${idx.dtype}`);
      if (idx.shape.length !== x.shape.length) fail(`indices rank ${idx.shape.length} differs from data rank ${x.shape.length}`);
      normAxis(Number(ctx.attrs.axis ?? 0), x.shape.length);
      return [{ dtype: x.dtype, shape: idx.shape }];
    },
  },
  ScatterND: {
    inputs: [3, 3],
    attrs: { reduction: 'string' },
    infer: (ctx) => [input(ctx, 0)],
  },
  ScatterElements: {
    inputs: [3, 3],
    attrs: { axis: 'int', reduction: 'string' },
    infer: (ctx) => [input(ctx, 0)],
  },
  Range: {
    inputs: [3, 3],
    attrs: {},
    infer: (ctx) => [{ dtype: input(ctx, 0).dtype, shape: ctx.hint ?? fail('Range needs a shape hint') }],
  },
  Trilu: {
    inputs: [1, 2],
    attrs: { upper: 'int' },
    infer: (ctx) => [input(ctx, 0)],
  },
  Shape: {
    inputs: [1, 1],
    attrs: {},
    infer: (ctx) => [{ dtype: 'int64', shape: [input(ctx, 0).shape.length] }],
  },
  Size: { inputs: [1, 1], attrs: {}, infer: () => [{ dtype: 'int64', shape: [] }] },
  ConstantOfShape: {
    inputs: [1, 1],
    attrs: { value: 'tensor' },
    infer: (ctx) => {
      const v = ctx.attrs.value as { dtype: DType } | undefined;
      return [{ dtype: v?.dtype ?? 'float32', shape: shapeFromInput(ctx, 0, 'ConstantOfShape') }];
    },
  },
} satisfies Record<string, OpSpec>;

export type OpType = keyof typeof OPS;

export function opSpec(op: string): OpSpec {
  const spec = (OPS as Record<string, OpSpec>)[op];
  if (!spec) throw new GraphError(`unknown op '${op}'`);
  return spec;
}
