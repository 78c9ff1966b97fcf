import { describe, expect, it } from 'vitest';
import { Graph } from '../../../../native-models/graph/builder';
import * as F from '../../../../native-models/graph/functional';
import { opHistogram, toOnnxBytes } from '../../../../native-models/graph/serialize';
import { verifyGraph } from '../../../../native-models/graph/verify';
import { compileGraph, eliminateDeadCode } from '../../../../native-models/graph/passes';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compile, ortTensor, run } from '../support';

describe('graph builder', () => {
  it('infers symbolic shapes through broadcasting, matmul and reshape', () => {
    const g = new Graph();
    const x = g.input('x', 'float32', ['B', 'T', 8]);
    const w = g.input('w', 'float32', [16, 8]);
    const h = F.gemm(F.reshape(x, ['B*T', 8]), w, undefined, { transB: true });
    expect(h.shape).toEqual(['B*T', 16]);
    const y = F.add(F.reshape(h, ['B', 'T', 4, 4]), g.input('bias', 'float32', [4]));
    expect(y.shape).toEqual(['B', 'T', 4, 4]);
    expect(F.reduceSum(y, [1, 3], false).shape).toEqual(['B', 4]);
    expect(F.matmul(y, F.transpose(y, [0, 1, 3, 2])).shape).toEqual(['B', 'T', 4, 4]);
  });

  it('throws at the offending call naming the op, node scope and input shapes', () => {
    const g = new Graph();
    const x = g.input('x', 'float32', ['N', 8]);
    const w = g.input('w', 'float32', [16, 7]);
    expect(() => g.withScope('layers', () => g.withScope(3, () => g.withScope('attn.q_proj', () => F.gemm(x, w, undefined, { transB: true })))))
      .toThrow(/Gemm \(node layers\.3\.attn\.q_proj\/Gemm_\d+\): inner dims differ.*inputs: float32\[N,8\], float32\[16,7\]/);
    expect(() => F.add(x, g.input('y', 'float32', ['M', 8]))).toThrow(/Add .*cannot broadcast \[N,8\] with \[M,8\]/);
    expect(() => F.add(x, g.input('z', 'float64', [8]))).toThrow(/dtype mismatch: input 0 is float32, input 1 is float64/);
    expect(() => g.op1('Softmax', [x], { axes: 1 })).toThrow(/unknown attribute 'axes'/);
    expect(() => g.op1('Add', [x])).toThrow(/expects 2\.\.2 inputs, got 1/);
    expect(() => F.reshape(g.input('r', 'float32', [2, 3]), [4, 2])).toThrow(/cannot reshape \[2,3\] to \[4,2\]/);
  });

  it('rejects duplicate names and unknown symbolic dims', () => {
    const g = new Graph();
    g.input('x', 'float32', [2]);
    expect(() => g.input('x', 'float32', [2])).toThrow(/already used/);
    const y = g.input('y', 'float32', [2]);
    expect(() => F.reshape(y, ['Q', 2])).toThrow(/symbolic dim 'Q' is not declared/);
  });

  it('verifyGraph reports dangling inputs, duplicate producers and missing outputs', () => {
    const g = new Graph('broken');
    const x = g.input('x', 'float32', [2]);
    g.output(F.exp(x), 'y');
    verifyGraph(g);
    g.nodes.push({ name: 'bad', op: 'Neg', inputs: ['nowhere'], outputs: ['y'], attrs: {} });
    expect(() => verifyGraph(g)).toThrow(/reads 'nowhere', which is not defined before it[\s\S]*'y' has more than one producer/);
    // A node reading a tensor produced after it is a cycle in a topologically ordered list.
    const h = new Graph('cycle');
    const a = h.input('a', 'float32', [1]);
    const n1 = F.neg(a);
    h.output(n1, 'out');
    h.nodes.unshift({ name: 'early', op: 'Exp', inputs: [n1.name], outputs: ['e'], attrs: {} });
    expect(() => verifyGraph(h)).toThrow(/node 'early' \(Exp\) reads/);
  });

  it('serialises to ONNX that runs with symbolic dims, int64 constants and attributes', async () => {
    const g = new Graph('roundtrip');
    const x = g.input('x', 'float32', ['B', 3]);
    const idx = g.input('idx', 'int64', ['B']);
    const rows = F.gather(g.constant([10, 20, 30, 40], 'float32', [4, 1]), idx);
    const y = F.softmax(F.add(F.mul(x, 2), rows), -1);
    g.output(F.reduceSum(y, [-1], false), 'rowsum');
    g.output(F.transpose(F.mul(x, rows), [1, 0]), 'scaled_t');
    g.output(F.cast(F.arange(g, 'B'), 'float32'), 'positions');
    const out = await run(await compile(g), {
      x: ortTensor('float32', [1, 2, 3, 4, 5, 6], [2, 3]),
      idx: ortTensor('int64', [3, 0], [2]),
    });
    out.rowsum.forEach((v) => expect(v).toBeCloseTo(1, 6));
    expect(out.scaled_t).toEqual([40, 40, 80, 50, 120, 60]);
    expect(out.positions).toEqual([0, 1]);
    expect(toOnnxBytes(g).length).toBeGreaterThan(100);
    expect(opHistogram(g).Softmax).toBe(1);
  });

  it('eliminateDeadCode drops nodes and constants that reach no output, keeping inputs', () => {
    const g = new Graph('dce');
    const x = g.input('x', 'float32', [2]);
    const unusedInput = g.input('u', 'float32', [2]);
    F.mul(F.exp(x), 3); // dead: Exp, Mul and the constant 3
    g.output(F.neg(x), 'y');
    expect(eliminateDeadCode(g)).toBe(2);
    expect(g.nodes.map((n) => n.op)).toEqual(['Neg', 'Identity']);
    expect(g.initializers.size).toBe(0);
    expect(g.inputs).toContain(unusedInput);
  });

  it('ENVACE_DUMP_GRAPH writes a listing per stage and the final ONNX', () => {
    const dir = mkdtempSync(join(tmpdir(), 'envace-dump-'));
    const prev = process.env.ENVACE_DUMP_GRAPH;
    process.env.ENVACE_DUMP_GRAPH = dir;
    try {
      const g = new Graph('dumped');
      g.output(F.sigmoid(g.input('x', 'float32', ['B', 4])), 'y');
      compileGraph(g);
      expect(readdirSync(dir).sort()).toEqual(['dumped.built.txt', 'dumped.onnx', 'dumped.simplified.txt']);
      expect(readFileSync(join(dir, 'dumped.simplified.txt'), 'utf8')).toMatch(/Sigmoid_\d+ = Sigmoid\(x\) -> Sigmoid_\d+:0:float32\[B,4\]/);
    } finally {
      if (prev === undefined) delete process.env.ENVACE_DUMP_GRAPH;
      else process.env.ENVACE_DUMP_GRAPH = prev;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
