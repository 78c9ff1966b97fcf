// The graph builder: typed tensors with symbolic dims, constants, scoped names, and shape/dtype
// checks at the call that made a mistake. Nodes are appended in topological order by construction.
import { type InferContext, type OpType, type TensorType, opSpec } from './ops';
import { type AnyTypedArray, type Attrs, type DType, type Dim, type Shape, GraphError, formatShape } from './types';

export class Tensor implements TensorType {
  constructor(
    readonly graph: Graph,
    readonly name: string,
    readonly dtype: DType,
    readonly shape: Shape,
  ) {}
  get rank(): number {
    return this.shape.length;
  }
}

export interface NodeDef {
  readonly name: string;
  readonly op: OpType;
  /** Input tensor names; '' marks an omitted optional input. */
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs: Attrs;
}

export interface Initializer {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly data: AnyTypedArray;
}

export interface GraphOutput {
  readonly name: string;
  readonly tensor: Tensor;
}

export interface OpOptions {
  /** Output shape for ops whose shape comes from a runtime tensor (Reshape/Expand/Range...). */
  hint?: Shape;
}

const ARRAY_OF: Record<DType, (d: ArrayLike<number>) => AnyTypedArray> = {
  float32: (d) => Float32Array.from(d),
  float64: (d) => Float64Array.from(d),
  int64: (d) => BigInt64Array.from(Array.from(d, (v) => BigInt(Math.trunc(v)))),
  int32: (d) => Int32Array.from(d),
  bool: (d) => Uint8Array.from(d, (v) => (v ? 1 : 0)),
};

export class Graph {
  readonly nodes: NodeDef[] = [];
  readonly inputs: Tensor[] = [];
  readonly outputs: GraphOutput[] = [];
  readonly initializers = new Map<string, Initializer>();
  /** Tensors whose gradient the autodiff walker must not propagate. */
  readonly stopGradient = new Set<string>();
  private readonly tensors = new Map<string, Tensor>();
  private readonly producers = new Map<string, NodeDef>();
  private readonly intConstants = new Map<string, number[]>();
  private readonly dimSources = new Map<string, { tensor: Tensor; axis: number }>();
  private readonly dimTensors = new Map<string, Tensor>();
  private readonly scopes: string[] = [];
  private counter = 0;

  constructor(readonly name = 'graph') {}

  get scope(): string {
    return this.scopes.join('.');
  }

  /** Runs `fn` with `name` appended to the naming scope, e.g. `layers.3.attn`. */
  withScope<R>(name: string | number, fn: () => R): R {
    this.scopes.push(String(name));
    try {
      return fn();
    } finally {
      this.scopes.pop();
    }
  }

  tensor(name: string): Tensor {
    const t = this.tensors.get(name);
    if (!t) throw new GraphError(`no tensor named '${name}'`);
    return t;
  }

  producer(name: string): NodeDef | undefined {
    return this.producers.get(name);
  }

  input(name: string, dtype: DType, shape: Shape): Tensor {
    const t = this.register(name, dtype, shape);
    this.inputs.push(t);
    shape.forEach((d, axis) => {
      if (typeof d === 'string' && !d.includes('*') && !this.dimSources.has(d)) this.dimSources.set(d, { tensor: t, axis });
    });
    return t;
  }

  constant(values: ArrayLike<number>, dtype: DType, shape: readonly number[] = [values.length]): Tensor {
    const size = shape.reduce((a, b) => a * b, 1);
    if (size !== values.length) throw new GraphError(`constant of shape ${formatShape(shape)} given ${values.length} values`);
    const name = this.uniqueName('const');
    const t = this.register(name, dtype, shape);
    this.initializers.set(name, { name, dtype, shape, data: ARRAY_OF[dtype](values) });
    if (dtype === 'int64' || dtype === 'int32') this.intConstants.set(name, Array.from(values));
    return t;
  }

  scalar(value: number, dtype: DType): Tensor {
    return this.constant([value], dtype, []);
  }

  /**
   * Turns graph input `name` into an initialiser holding `data` (for self-contained exports: the
   * weights travel inside the model instead of being fed at every run).
   */
  embedInput(name: string, data: AnyTypedArray): void {
    const k = this.inputs.findIndex((t) => t.name === name);
    if (k < 0) throw new GraphError(`embedInput: no graph input named '${name}'`);
    const t = this.inputs[k];
    if (!t.shape.every((d) => typeof d === 'number')) throw new GraphError(`embedInput: '${name}' has symbolic shape ${formatShape(t.shape)}`);
    const size = (t.shape as number[]).reduce((a, b) => a * b, 1);
    if (data.length !== size) throw new GraphError(`embedInput: '${name}' needs ${size} values, got ${data.length}`);
    this.inputs.splice(k, 1);
    this.initializers.set(name, { name, dtype: t.dtype, shape: t.shape as number[], data });
  }

  /** Integer values of a build-time constant tensor, if it is one. */
  constantValue(t: Tensor): number[] | undefined {
    return this.intConstants.get(t.name);
  }

  /** Appends one node; checks arity, dtypes and shapes and names the op and scope on failure. */
  op(type: OpType, inputs: readonly (Tensor | undefined)[], attrs: Attrs = {}, opts: OpOptions = {}): Tensor[] {
    const spec = opSpec(type);
    const nodeName = this.uniqueName(type);
    const where = `${type} (node ${nodeName})`;
    let last = inputs.length;
    while (last > 0 && inputs[last - 1] === undefined) last--;
    if (last < spec.inputs[0] || last > spec.inputs[1])
      throw new GraphError(`${where}: expects ${spec.inputs[0]}..${spec.inputs[1]} inputs, got ${last}`);
    for (const t of inputs) if (t && t.graph !== this) throw new GraphError(`${where}: input '${t.name}' belongs to another graph`);
    for (const key of Object.keys(attrs)) if (!(key in spec.attrs)) throw new GraphError(`${where}: unknown attribute '${key}'`);
    const ctx: InferContext = {
      inputs: inputs.slice(0, last),
      attrs,
      constant: (i) => (inputs[i] ? this.intConstants.get(inputs[i]!.name) : undefined),
      hint: opts.hint,
    };
    let types: TensorType[];
    try {
      types = spec.infer(ctx);
    } catch (e) {
      const shapes = inputs.slice(0, last).map((t) => (t ? `${t.dtype}${formatShape(t.shape)}` : '-')).join(', ');
      throw new GraphError(`${where}: ${(e as Error).message} (inputs: ${shapes})`);
    }
    const outputs = types.map((ty, i) => this.register(`${nodeName}:${i}`, ty.dtype, ty.shape));
    const node: NodeDef = { name: nodeName, op: type, inputs: inputs.slice(0, last).map((t) => t?.name ?? ''), outputs: outputs.map((o) => o.name), attrs };
    this.nodes.push(node);
    for (const o of outputs) this.producers.set(o.name, node);
    return outputs;
  }

  op1(type: OpType, inputs: readonly (Tensor | undefined)[], attrs: Attrs = {}, opts: OpOptions = {}): Tensor {
    return this.op(type, inputs, attrs, opts)[0];
  }

  /** Declares `t` a graph output called `name` (an Identity node carries the public name). */
  output(t: Tensor, name: string): Tensor {
    if (this.tensors.has(name)) throw new GraphError(`output name '${name}' is already used`);
    const node: NodeDef = { name: this.uniqueName('Identity'), op: 'Identity', inputs: [t.name], outputs: [name], attrs: {} };
    const out = this.register(name, t.dtype, t.shape);
    this.nodes.push(node);
    this.producers.set(name, node);
    this.outputs.push({ name, tensor: out });
    return out;
  }

  /** A 1-D int64 tensor holding `dims` at run time; symbols resolve through the inputs that declared them. */
  shapeTensor(dims: Shape): Tensor {
    if (dims.every((d) => typeof d === 'number')) return this.constant(dims as number[], 'int64');
    const parts = dims.map((d) => (typeof d === 'number' ? this.constant([d], 'int64') : this.dimTensor(d)));
    return this.op1('Concat', parts, { axis: 0 });
  }

  private dimTensor(dim: string): Tensor {
    const cached = this.dimTensors.get(dim);
    if (cached) return cached;
    let t: Tensor;
    if (dim.includes('*')) {
      const [first, ...rest] = dim.split('*').map((p) => this.dimTensor(p));
      t = rest.reduce((acc, p) => this.op1('Mul', [acc, p]), first);
    } else {
      const src = this.dimSources.get(dim);
      if (!src) throw new GraphError(`symbolic dim '${dim}' is not declared by any graph input`);
      const shape = this.op1('Shape', [src.tensor]);
      t = this.op1('Gather', [shape, this.constant([src.axis], 'int64')], { axis: 0 });
    }
    this.dimTensors.set(dim, t);
    return t;
  }

  private register(name: string, dtype: DType, shape: Shape): Tensor {
    if (this.tensors.has(name)) throw new GraphError(`tensor name '${name}' is already used`);
    const t = new Tensor(this, name, dtype, [...shape] as Dim[]);
    this.tensors.set(name, t);
    return t;
  }

  private uniqueName(base: string): string {
    const prefix = this.scope ? `${this.scope}/` : '';
    return `${prefix}${base}_${this.counter++}`;
  }
}
