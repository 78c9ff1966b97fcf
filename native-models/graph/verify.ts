// Structural checks run before a graph is serialised: the builder prevents most of these,
// but autodiff and later passes append nodes too, so the whole graph is checked once more.
import type { Graph } from './builder';
import { GraphError } from './types';

export function verifyGraph(g: Graph): void {
  const problems: string[] = [];
  const defined = new Set<string>();
  const define = (name: string, by: string) => {
    if (defined.has(name)) problems.push(`tensor '${name}' has more than one producer (again by ${by})`);
    defined.add(name);
  };
  for (const t of g.inputs) define(t.name, 'graph input');
  for (const name of g.initializers.keys()) define(name, 'initializer');
  const nodeNames = new Set<string>();
  // Nodes must appear in topological order: a node may only read tensors defined above it,
  // which also rules out cycles.
  for (const n of g.nodes) {
    if (nodeNames.has(n.name)) problems.push(`node name '${n.name}' is not unique`);
    nodeNames.add(n.name);
    for (const i of n.inputs) {
      if (i !== '' && !defined.has(i)) problems.push(`node '${n.name}' (${n.op}) reads '${i}', which is not defined before it (dangling input or cycle)`);
    }
    for (const o of n.outputs) define(o, `node '${n.name}'`);
  }
  for (const o of g.outputs) if (!defined.has(o.name)) problems.push(`graph output '${o.name}' is never produced`);
  if (problems.length) throw new GraphError(`graph '${g.name}' failed verification:\n  ${problems.slice(0, 20).join('\n  ')}`);
}
