// GGUF v3 container (llama.cpp's model file): little-endian header "GGUF", version, tensor and metadata
// counts; typed key/value metadata; tensor infos (name, dims innermost-first, ggml type, offset); then the
// tensor data, each tensor starting on a multiple of `general.alignment` (32 unless the file says otherwise).
// Shapes in this API are in PyTorch order ([out, in]); the reversal to ggml's order happens here only.

import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { GGML_READ_TYPES, type GgmlReadType, ggmlByteSize, ggmlReadTypeOf, ggmlTypeLabel, supportedTypeList } from './gguf-quants';

export const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
export const GGUF_VERSION = 3;
export const GGUF_DEFAULT_ALIGNMENT = 32;

export class GgufError extends Error {
  override name = 'GgufError';
  constructor(
    readonly code: 'BAD_MAGIC' | 'BAD_VERSION' | 'TRUNCATED' | 'BAD_VALUE' | 'UNSUPPORTED_TYPE' | 'BAD_TENSOR' | 'UNSUPPORTED_ARCHITECTURE' | 'UNSUPPORTED_TOKENIZER' | 'MISSING_KEY',
    message: string,
  ) {
    super(message);
  }
}

const VALUE_TYPES = ['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'f32', 'bool', 'string', 'array', 'u64', 'i64', 'f64'] as const;
export type GgufScalarType = Exclude<(typeof VALUE_TYPES)[number], 'array'>;
type Scalar = number | bigint | boolean | string;

export type GgufValue =
  | { type: 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'f32' | 'f64'; value: number }
  | { type: 'u64' | 'i64'; value: bigint }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; itemType: GgufScalarType; value: Scalar[] };

/** Bytes of each fixed-width metadata value. */
const SCALAR_WIDTH: Record<Exclude<GgufScalarType, 'string'>, number> = { u8: 1, i8: 1, bool: 1, u16: 2, i16: 2, u32: 4, i32: 4, f32: 4, u64: 8, i64: 8, f64: 8 };

/** Tensor element types this project writes (ggml_type ids). */
export const GGML_TYPES = { F32: { id: 0, bytes: 4 }, F16: { id: 1, bytes: 2 }, BF16: { id: 30, bytes: 2 } } as const;
export type GgmlType = keyof typeof GGML_TYPES;

export interface GgufTensor {
  name: string;
  /** What the writer takes (GgmlType); a file read may hold any type gguf-quants.ts dequantises. */
  type: GgmlReadType;
  /** PyTorch order, outermost first. */
  shape: number[];
  /** Float32Array for F32; raw 16-bit patterns for F16 / BF16; the raw blocks of a quantised type. */
  data: Float32Array | Uint16Array | Uint8Array;
}

export interface GgufFile {
  version: number;
  metadata: Map<string, GgufValue>;
  tensors: GgufTensor[];
}

/** Growable little-endian byte buffer for the header. */
class ByteWriter {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  length = 0;
  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u32(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }
  u64(v: number | bigint): void {
    this.ensure(8);
    this.view.setBigUint64(this.length, BigInt(v), true);
    this.length += 8;
  }
  scalar(type: GgufScalarType, v: Scalar): void {
    if (type === 'string') return this.string(v as string);
    const width = SCALAR_WIDTH[type];
    this.ensure(width);
    const at = this.length;
    const d = this.view;
    switch (type) {
      case 'u8': d.setUint8(at, v as number); break;
      case 'i8': d.setInt8(at, v as number); break;
      case 'bool': d.setUint8(at, v ? 1 : 0); break;
      case 'u16': d.setUint16(at, v as number, true); break;
      case 'i16': d.setInt16(at, v as number, true); break;
      case 'u32': d.setUint32(at, v as number, true); break;
      case 'i32': d.setInt32(at, v as number, true); break;
      case 'f32': d.setFloat32(at, v as number, true); break;
      case 'u64': d.setBigUint64(at, BigInt(v as bigint), true); break;
      case 'i64': d.setBigInt64(at, BigInt(v as bigint), true); break;
      case 'f64': d.setFloat64(at, v as number, true); break;
    }
    this.length += width;
  }
  string(s: string): void {
    const bytes = new TextEncoder().encode(s);
    this.u64(bytes.length);
    this.ensure(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }
  pad(alignment: number): void {
    const n = (alignment - (this.length % alignment)) % alignment;
    this.ensure(n);
    this.buf.fill(0, this.length, this.length + n);
    this.length += n;
  }
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

const alignUp = (n: number, a: number) => Math.ceil(n / a) * a;

function checkTensor(t: GgufTensor): Uint8Array {
  const spec = (GGML_READ_TYPES as Partial<Record<string, (typeof GGML_READ_TYPES)[GgmlReadType]>>)[t.type];
  if (!spec) throw new GgufError('UNSUPPORTED_TYPE', `tensor "${t.name}" has unsupported type ${String(t.type)}`);
  const count = t.shape.reduce((a, b) => a * b, 1);
  if (!t.shape.every((d) => Number.isSafeInteger(d) && d > 0) || t.shape.length === 0 || t.shape.length > 4) {
    throw new GgufError('BAD_TENSOR', `tensor "${t.name}" needs 1 to 4 positive dims, got [${t.shape.join(', ')}]`);
  }
  if (t.shape.at(-1)! % spec.blockSize !== 0) throw new GgufError('BAD_TENSOR', `tensor "${t.name}" ${t.type} rows of ${t.shape.at(-1)} are not whole ${spec.blockSize}-weight blocks`);
  // Quantised tensors are passed as their raw blocks.
  const expectArray = t.type === 'F32' ? Float32Array : t.type === 'F16' || t.type === 'BF16' ? Uint16Array : Uint8Array;
  const length = expectArray === Uint8Array ? ggmlByteSize(t.type, count) : count;
  if (!(t.data instanceof expectArray) || t.data.length !== length) {
    throw new GgufError('BAD_TENSOR', `tensor "${t.name}" ${t.type}[${t.shape.join(', ')}] needs a ${expectArray.name} of ${length} elements`);
  }
  return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}

function layout(file: Omit<GgufFile, 'version'>): { header: Uint8Array; parts: Uint8Array[]; alignment: number } {
  const alignValue = file.metadata.get('general.alignment');
  const alignment = alignValue?.type === 'u32' ? alignValue.value : GGUF_DEFAULT_ALIGNMENT;
  if (!Number.isInteger(alignment) || alignment <= 0 || alignment % 8 !== 0) throw new GgufError('BAD_VALUE', `general.alignment must be a positive multiple of 8, got ${alignment}`);
  const w = new ByteWriter();
  w.u32(GGUF_MAGIC);
  w.u32(GGUF_VERSION);
  w.u64(file.tensors.length);
  w.u64(file.metadata.size);
  for (const [key, v] of file.metadata) {
    w.string(key);
    w.u32(VALUE_TYPES.indexOf(v.type));
    if (v.type === 'array') {
      w.u32(VALUE_TYPES.indexOf(v.itemType));
      w.u64(v.value.length);
      for (const item of v.value) w.scalar(v.itemType, item);
    } else w.scalar(v.type, v.value);
  }
  const parts: Uint8Array[] = [];
  let offset = 0;
  const names = new Set<string>();
  for (const t of file.tensors) {
    if (names.has(t.name)) throw new GgufError('BAD_TENSOR', `tensor "${t.name}" appears twice`);
    names.add(t.name);
    const bytes = checkTensor(t);
    w.string(t.name);
    w.u32(t.shape.length);
    for (const d of [...t.shape].reverse()) w.u64(d);
    w.u32(GGML_READ_TYPES[t.type].id);
    w.u64(offset);
    parts.push(bytes);
    const padded = alignUp(bytes.byteLength, alignment);
    if (padded > bytes.byteLength) parts.push(new Uint8Array(padded - bytes.byteLength));
    offset += padded;
  }
  w.pad(alignment);
  return { header: w.bytes(), parts, alignment };
}

export function encodeGguf(file: Omit<GgufFile, 'version'>): Uint8Array {
  const { header, parts } = layout(file);
  const out = new Uint8Array(header.length + parts.reduce((n, p) => n + p.length, 0));
  out.set(header);
  let at = header.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Write a GGUF file through a temp name, so a crash never leaves half a model under the final name. */
export function writeGguf(path: string, file: Omit<GgufFile, 'version'>): void {
  const { header, parts } = layout(file);
  const tmp = `${path}.tmp-${randomBytes(6).toString('hex')}`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      for (const chunk of [header, ...parts]) {
        for (let done = 0; done < chunk.length; ) done += writeSync(fd, chunk, done, Math.min(1 << 30, chunk.length - done));
      }
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Bounds-checked little-endian reader over a whole file. */
class ByteReader {
  private view: DataView;
  at = 0;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private need(n: number, what: string): void {
    if (this.at + n > this.bytes.length) throw new GgufError('TRUNCATED', `file ends inside ${what} at byte ${this.at}`);
  }
  u32(what: string): number {
    this.need(4, what);
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }
  u64(what: string): number {
    this.need(8, what);
    const v = this.view.getBigUint64(this.at, true);
    this.at += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new GgufError('BAD_VALUE', `${what} ${v} is too large`);
    return Number(v);
  }
  string(what: string): string {
    const n = this.u64(`${what} length`);
    this.need(n, what);
    const s = new TextDecoder('utf-8', { fatal: false }).decode(this.bytes.subarray(this.at, this.at + n));
    this.at += n;
    return s;
  }
  scalar(type: GgufScalarType, what: string): Scalar {
    if (type === 'string') return this.string(what);
    const width = SCALAR_WIDTH[type];
    this.need(width, what);
    const d = this.view;
    const at = this.at;
    this.at += width;
    switch (type) {
      case 'u8': return d.getUint8(at);
      case 'i8': return d.getInt8(at);
      case 'bool': return d.getUint8(at) !== 0;
      case 'u16': return d.getUint16(at, true);
      case 'i16': return d.getInt16(at, true);
      case 'u32': return d.getUint32(at, true);
      case 'i32': return d.getInt32(at, true);
      case 'f32': return d.getFloat32(at, true);
      case 'u64': return d.getBigUint64(at, true);
      case 'i64': return d.getBigInt64(at, true);
      case 'f64': return d.getFloat64(at, true);
    }
  }
  valueType(what: string): (typeof VALUE_TYPES)[number] {
    const id = this.u32(what);
    const type = VALUE_TYPES[id];
    if (type === undefined) throw new GgufError('BAD_VALUE', `${what} has unknown value type ${id}`);
    return type;
  }
}

/** Parse a GGUF file (v2 or v3) whose tensors are of the types gguf-quants.ts reads (F32, F16, BF16, Q4_0 … Q6_K). */
export function decodeGguf(bytes: Uint8Array): GgufFile {
  const r = new ByteReader(bytes);
  if (r.u32('magic') !== GGUF_MAGIC) throw new GgufError('BAD_MAGIC', 'not a GGUF file (magic bytes differ)');
  const version = r.u32('version');
  if (version !== 2 && version !== 3) throw new GgufError('BAD_VERSION', `GGUF version ${version} is not supported (2 or 3)`);
  const tensorCount = r.u64('tensor count');
  const kvCount = r.u64('metadata count');
  // Every entry takes at least 8 bytes, so counts beyond the file size are lies, not big files.
  if (tensorCount > bytes.length / 8 || kvCount > bytes.length / 8) throw new GgufError('BAD_VALUE', 'tensor or metadata count exceeds the file size');

  const metadata = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    const key = r.string('metadata key');
    const type = r.valueType(`metadata "${key}"`);
    if (type === 'array') {
      const itemType = r.valueType(`array "${key}"`);
      if (itemType === 'array') throw new GgufError('UNSUPPORTED_TYPE', `metadata "${key}" is an array of arrays`);
      const n = r.u64(`array "${key}" length`);
      // Each item takes at least its width (a string its 8-byte length), so the count is checked
      // against the bytes left before an array of that length is allocated.
      const minWidth = itemType === 'string' ? 8 : SCALAR_WIDTH[itemType];
      if (n * minWidth > bytes.length - r.at) throw new GgufError('BAD_VALUE', `array "${key}" claims ${n} items, more than the ${bytes.length - r.at} bytes left hold`);
      const value: Scalar[] = new Array(n);
      for (let j = 0; j < n; j++) value[j] = r.scalar(itemType, `array "${key}"`);
      metadata.set(key, { type: 'array', itemType, value });
    } else {
      metadata.set(key, { type, value: r.scalar(type, `metadata "${key}"`) } as GgufValue);
    }
  }
  const alignValue = metadata.get('general.alignment');
  const alignment = alignValue?.type === 'u32' ? alignValue.value : GGUF_DEFAULT_ALIGNMENT;

  const infos: { name: string; type: GgmlReadType; shape: number[]; offset: number }[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = r.string('tensor name');
    const nDims = r.u32(`tensor "${name}" dims`);
    if (nDims < 1 || nDims > 4) throw new GgufError('BAD_TENSOR', `tensor "${name}" has ${nDims} dims`);
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) dims.push(r.u64(`tensor "${name}" dim`));
    const typeId = r.u32(`tensor "${name}" type`);
    const type = ggmlReadTypeOf(typeId);
    if (!type) throw new GgufError('UNSUPPORTED_TYPE', `tensor "${name}" is ${ggmlTypeLabel(typeId)}, which this reader does not take (it takes ${supportedTypeList()})`);
    // ggml quantises along rows, so each row (the innermost dim) is a whole number of blocks.
    if (dims.some((d) => d <= 0) || dims[0] % GGML_READ_TYPES[type].blockSize !== 0) {
      throw new GgufError('BAD_TENSOR', `tensor "${name}" ${type} has dims [${dims.join(', ')}]; each must be positive and the first a multiple of ${GGML_READ_TYPES[type].blockSize}`);
    }
    const offset = r.u64(`tensor "${name}" offset`);
    if (offset % alignment !== 0) throw new GgufError('BAD_TENSOR', `tensor "${name}" offset ${offset} is not ${alignment}-byte aligned`);
    infos.push({ name, type, shape: dims.reverse(), offset });
  }
  const dataStart = alignUp(r.at, alignment);
  const tensors: GgufTensor[] = infos.map(({ name, type, shape, offset }) => {
    const count = shape.reduce((a, b) => a * b, 1);
    const start = dataStart + offset;
    const end = start + ggmlByteSize(type, count);
    // A product past 2^53 is not exact, but it is then far past any file's end as well.
    if (end > bytes.length) throw new GgufError('TRUNCATED', `tensor "${name}" data [${start}, ${end}) runs past the end of the file`);
    // Uint8Array's slice copies; a Node Buffer's (readFileSync) would share the whole file's memory.
    const copy = Uint8Array.prototype.slice.call(bytes, start, end);
    const data = type === 'F32' ? new Float32Array(copy.buffer) : type === 'F16' || type === 'BF16' ? new Uint16Array(copy.buffer) : copy;
    return { name, type, shape, data };
  });
  return { version, metadata, tensors };
}

/** Shorthands for metadata values. */
export const gguf = {
  u32: (value: number): GgufValue => ({ type: 'u32', value }),
  i32: (value: number): GgufValue => ({ type: 'i32', value }),
  f32: (value: number): GgufValue => ({ type: 'f32', value }),
  bool: (value: boolean): GgufValue => ({ type: 'bool', value }),
  str: (value: string): GgufValue => ({ type: 'string', value }),
  array: (itemType: GgufScalarType, value: Scalar[]): GgufValue => ({ type: 'array', itemType, value }),
};
