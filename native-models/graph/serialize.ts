// Graph → ONNX ModelProto bytes (onnx-proto's protobufjs classes). Attribute kinds come from ops.ts.
import onnxProto from 'onnx-proto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Graph, Initializer, Tensor } from './builder';
import { OPSET, type AttrKind, opSpec } from './ops';
import { type AttrValue, type DType, GraphError, type ScalarTensor } from './types';
import { verifyGraph } from './verify';

const { onnx } = onnxProto;

export const ONNX_DTYPE: Record<DType, number> = { float32: 1, int32: 6, int64: 7, bool: 9, float64: 11 };
const IR_VERSION = 8;

function rawBytes(data: ArrayBufferView): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function tensorProto(init: Initializer): onnxProto.onnx.ITensorProto {
  return { name: init.name, dataType: ONNX_DTYPE[init.dtype], dims: [...init.shape], rawData: rawBytes(init.data) };
}

function scalarTensorProto(v: ScalarTensor): onnxProto.onnx.ITensorProto {
  const arr =
    v.dtype === 'float32' ? new Float32Array([v.value]) :
    v.dtype === 'float64' ? new Float64Array([v.value]) :
    v.dtype === 'int64' ? new BigInt64Array([BigInt(v.value)]) :
    v.dtype === 'int32' ? new Int32Array([v.value]) : new Uint8Array([v.value ? 1 : 0]);
  return { dataType: ONNX_DTYPE[v.dtype], dims: [1], rawData: rawBytes(arr) };
}

function attribute(name: string, kind: AttrKind, v: AttrValue): onnxProto.onnx.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  switch (kind) {
    case 'int': return { name, type: T.INT, i: v as number };
    case 'ints': return { name, type: T.INTS, ints: v as number[] };
    case 'float': return { name, type: T.FLOAT, f: v as number };
    case 'string': return { name, type: T.STRING, s: new TextEncoder().encode(v as string) };
    case 'dtype': return { name, type: T.INT, i: ONNX_DTYPE[v as DType] };
    case 'tensor': return { name, type: T.TENSOR, t: scalarTensorProto(v as ScalarTensor) };
  }
}

function valueInfo(t: Tensor, name = t.name): onnxProto.onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: ONNX_DTYPE[t.dtype],
        shape: { dim: t.shape.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

export function toModelProto(g: Graph): onnxProto.onnx.IModelProto {
  verifyGraph(g);
  const nodes = g.nodes.map((n) => {
    const spec = opSpec(n.op);
    return {
      name: n.name,
      opType: n.op,
      input: [...n.inputs],
      output: [...n.outputs],
      attribute: Object.entries(n.attrs).map(([k, v]) => attribute(k, spec.attrs[k], v)),
    };
  });
  return {
    irVersion: IR_VERSION,
    producerName: 'envace-native-models',
    opsetImport: [{ domain: '', version: OPSET }],
    graph: {
      name: g.name,
      node: nodes,
      input: g.inputs.map((t) => valueInfo(t)),
      output: g.outputs.map((o) => valueInfo(o.tensor, o.name)),
      initializer: [...g.initializers.values()].map(tensorProto),
    },
  };
}

/** Verifies and serialises; when ENVACE_DUMP_GRAPH=dir is set, also writes `<dir>/<graph>.onnx`. */
export function toOnnxBytes(g: Graph): Uint8Array {
  if (g.outputs.length === 0) throw new GraphError(`graph '${g.name}' has no outputs`);
  const bytes = onnx.ModelProto.encode(onnx.ModelProto.create(toModelProto(g))).finish();
  const dumpDir = process.env.ENVACE_DUMP_GRAPH;
  if (dumpDir) {
    mkdirSync(dumpDir, { recursive: true });
    writeFileSync(join(dumpDir, `${g.name}.onnx`), bytes);
  }
  return bytes;
}

/** Node count per op type, for golden tests and reviews of graph changes. */
export function opHistogram(g: Graph): Record<string, number> {
  const h: Record<string, number> = {};
  for (const n of g.nodes) h[n.op] = (h[n.op] ?? 0) + 1;
  return Object.fromEntries(Object.entries(h).sort(([a], [b]) => a.localeCompare(b)));
}
