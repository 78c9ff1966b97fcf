// The reverse-mode walker: appends backward nodes for d loss / d wrt. It alone un-broadcasts rule
// results to input shapes, sums gradients of tensors used more than once, skips integer paths and
// tensors marked with stopGradient.
import type { Graph, NodeDef, Tensor } from '../builder';
import * as F from '../functional';
import { type Shape, GraphError, formatShape, isFloat } from '../types';
import { NON_DIFFERENTIABLE, RULES, type Vjp } from './rules';

/** Sums `grad` over the axes it was broadcast along so it takes `shape`. */
export function unbroadcast(grad: Tensor, shape: Shape, where: string): Tensor {
  if (grad.shape.length === shape.length && grad.shape.every((d, i) => d === shape[i])) return grad;
  const lead = grad.rank - shape.length;
  if (lead < 0) throw new GraphError(`${where}: gradient ${formatShape(grad.shape)} has lower rank than input ${formatShape(shape)}`);
  let g = lead > 0 ? F.reduceSum(grad, [...Array(lead).keys()], false) : grad;
  const axes = shape.flatMap((d, i) => (d === 1 && g.shape[i] !== 1 ? [i] : []));
  if (axes.length) g = F.reduceSum(g, axes, true);
  if (!g.shape.every((d, i) => d === shape[i]))
    throw new GraphError(`${where}: cannot reduce gradient ${formatShape(grad.shape)} to input shape ${formatShape(shape)}`);
  return g;
}

function sum(ts: Tensor[]): Tensor {
  return ts.reduce((acc, t) => F.add(acc, t));
}

/**
 * Appends the backward graph of scalar `loss` and returns d loss / d w for each `w` (zeros where
 * `loss` does not depend on `w`).
 */
export function grad(loss: Tensor, wrt: readonly Tensor[]): Tensor[] {
  const g: Graph = loss.graph;
  if (!isFloat(loss.dtype) || !loss.shape.every((d) => d === 1)) throw new GraphError(`grad: loss must be a float scalar, got ${loss.dtype}${formatShape(loss.shape)}`);
  const forward = g.nodes.slice();

  // Tensors that depend on some `wrt` through differentiable, float-valued paths.
  const live = new Set(wrt.map((w) => w.name));
  for (const n of forward) {
    if (NON_DIFFERENTIABLE.has(n.op) || !n.inputs.some((i) => live.has(i))) continue;
    for (const o of n.outputs) if (isFloat(g.tensor(o).dtype) && !g.stopGradient.has(o)) live.add(o);
  }

  const pending = new Map<string, Tensor[]>([[loss.name, [g.scalar(1, loss.dtype)]]]);
  const accumulated = (name: string): Tensor | undefined => {
    const parts = pending.get(name);
    return parts && parts.length ? sum(parts) : undefined;
  };

  for (let k = forward.length - 1; k >= 0; k--) {
    const node = forward[k];
    if (!node.outputs.some((o) => pending.has(o) && live.has(o))) continue;
    const wants = node.inputs.map((i) => i !== '' && live.has(i));
    if (!wants.some(Boolean)) continue;
    const rule = RULES.get(node.op);
    if (!rule) throw new GraphError(`no VJP rule for ${node.op} (node ${node.name})`);
    g.withScope(`grad.${node.name}`, () => applyRule(g, node, rule, wants, accumulated, pending));
  }
  return wrt.map((w) => accumulated(w.name) ?? F.fullLike(w, 0));
}

function applyRule(
  g: Graph,
  node: NodeDef,
  rule: Vjp,
  wants: boolean[],
  accumulated: (name: string) => Tensor | undefined,
  pending: Map<string, Tensor[]>,
): void {
  const x = node.inputs.map((i) => (i === '' ? (undefined as unknown as Tensor) : g.tensor(i)));
  const y = node.outputs.map((o) => g.tensor(o));
  const dys = new Map<number, Tensor>();
  const grads = rule({
    node,
    x,
    y,
    wants: (i) => wants[i] ?? false,
    dy: (i = 0) => {
      let d = dys.get(i);
      if (!d) {
        d = accumulated(node.outputs[i]) ?? F.fullLike(y[i], 0);
        dys.set(i, d);
      }
      return d;
    },
  });
  grads.forEach((gi, i) => {
    if (!gi || !wants[i]) return;
    const where = `gradient of ${node.op} (node ${node.name}) input ${i}`;
    const shaped = unbroadcast(gi, x[i].shape, where);
    if (shaped.dtype !== x[i].dtype) throw new GraphError(`${where}: dtype ${shaped.dtype} differs from input ${x[i].dtype}`);
    const list = pending.get(node.inputs[i]) ?? [];
    list.push(shaped);
    pending.set(node.inputs[i], list);
  });
}
