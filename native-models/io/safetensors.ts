// safetensors: an 8-byte little-endian header length N, N bytes of JSON header
// ({name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__"?: {string: string}}),
// then the raw little-endian tensor bytes, offsets relative to the end of the header.
// Files come from anywhere (imports), so every header field is validated before a byte is trusted.

import { closeSync, constants, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { DTYPES, type Dtype, type HostTensor, type TensorData, dataMatchesDtype, elementCount, formatShape, isDtype } from './dtype';
import { bf16ToFloat32, f16ToFloat32, float32ToBf16, float32ToF16 } from './half';
import { JsonBoundsError, parseBoundedJson } from './bounded-json';
import { jsonSyntaxProblem } from './bounded-file';

/**
 * Header JSON larger than this is refused before it is read. The reference implementation allows
 * 100 MB, but parsing that much here took 34 s and 1.5 GB; real headers are ~100 bytes a tensor,
 * so 16 MiB holds far more tensors than MAX_TENSORS.
 */
export const MAX_HEADER_BYTES = 16 * 1024 * 1024;
/** Tensors in one file (or one sharded index): a 405B Llama has ~1,100, a large MoE a few tens of thousands. */
export const MAX_TENSORS = 100_000;
/** Dimensions of one tensor: weights have at most 4-5, so more is a malformed header. */
export const MAX_RANK = 8;
/** Header nesting: {name: {shape: [..]}} is three levels. */
const MAX_HEADER_DEPTH = 4;

export type SafetensorsErrorCode =
  | 'FILE_TOO_SHORT'
  | 'HEADER_TOO_LARGE'
  | 'HEADER_LENGTH_OUT_OF_RANGE'
  | 'HEADER_NOT_JSON'
  | 'HEADER_INVALID'
  | 'UNKNOWN_DTYPE'
  | 'BAD_SHAPE'
  | 'OFFSETS_OUT_OF_RANGE'
  | 'OFFSETS_OVERLAP'
  | 'OFFSETS_GAP'
  | 'SIZE_MISMATCH'
  | 'BAD_TENSOR'
  | 'BAD_INDEX'
  | 'MISSING_TENSOR'
  | 'IO';

export class SafetensorsError extends Error {
  override name = 'SafetensorsError';
  constructor(
    readonly code: SafetensorsErrorCode,
    message: string,
    readonly source?: string,
  ) {
    super(source ? `${source}: ${message}` : message);
  }
}

export type TensorMap = Map<string, HostTensor>;
export type TensorInput = Map<string, HostTensor> | Record<string, HostTensor>;

export interface ReadOptions {
  /** Return F16 / BF16 tensors as F32 (Float32Array) instead of raw 16-bit patterns. */
  halfToFloat32?: boolean;
  /** Read only these tensors (the header is still validated in full). */
  only?: Iterable<string>;
}

export interface Safetensors {
  tensors: TensorMap;
  metadata: Record<string, string>;
}

interface HeaderEntry {
  name: string;
  dtype: Dtype;
  shape: number[];
  begin: number;
  end: number;
}

interface ParsedHeader {
  entries: HeaderEntry[];
  metadata: Record<string, string>;
  dataStart: number;
}

/** Validate the 8-byte prefix and JSON header against the total byte length of the file. */
function parseHeader(prefix: Uint8Array, readHeader: (n: number) => Uint8Array, totalBytes: number, source?: string): ParsedHeader {
  const fail = (code: SafetensorsErrorCode, msg: string) => new SafetensorsError(code, msg, source);
  if (totalBytes < 8) throw fail('FILE_TOO_SHORT', `file is ${totalBytes} bytes, shorter than the 8-byte header length`);
  const n = new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true);
  if (n > BigInt(totalBytes - 8)) throw fail('HEADER_LENGTH_OUT_OF_RANGE', `header length ${n} runs past the end of the file (${totalBytes} bytes)`);
  if (n > BigInt(MAX_HEADER_BYTES)) throw fail('HEADER_TOO_LARGE', `header of ${n} bytes exceeds the ${MAX_HEADER_BYTES}-byte cap`);
  const headerLen = Number(n);
  let json: unknown;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(readHeader(headerLen));
    json = parseBoundedJson(text, { maxChars: MAX_HEADER_BYTES, maxDepth: MAX_HEADER_DEPTH }, 'header');
  } catch (e) {
    if (e instanceof SafetensorsError) throw e;
    if (e instanceof JsonBoundsError && e.kind !== 'malformed') throw fail('HEADER_INVALID', e.message);
    throw fail('HEADER_NOT_JSON', jsonSyntaxProblem(e, 'header is not valid UTF-8 JSON'));
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw fail('HEADER_INVALID', 'header JSON is not an object');
  const count = Object.keys(json).length;
  if (count > MAX_TENSORS + 1) throw fail('HEADER_INVALID', `header lists ${count} entries, over the limit of ${MAX_TENSORS} tensors`);

  const dataStart = 8 + headerLen;
  const dataBytes = totalBytes - dataStart;
  const metadata: Record<string, string> = {};
  const entries: HeaderEntry[] = [];
  for (const [name, raw] of Object.entries(json as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw fail('HEADER_INVALID', '__metadata__ is not an object');
      for (const [k, v] of Object.entries(raw)) {
        if (typeof v !== 'string') throw fail('HEADER_INVALID', `__metadata__.${k} is not a string`);
        metadata[k] = v;
      }
      continue;
    }
    entries.push(parseEntry(name, raw, dataBytes, fail));
  }
  checkTiling(entries, dataBytes, fail);
  return { entries, metadata, dataStart };
}

function parseEntry(name: string, raw: unknown, dataBytes: number, fail: (c: SafetensorsErrorCode, m: string) => SafetensorsError): HeaderEntry {
  if (raw === null || typeof raw !== 'object') throw fail('HEADER_INVALID', `entry "${name}" is not an object`);
  const { dtype, shape, data_offsets: offsets } = raw as Record<string, unknown>;
  if (!isDtype(dtype)) throw fail('UNKNOWN_DTYPE', `tensor "${name}" has unknown dtype ${JSON.stringify(dtype)}`);
  if (!Array.isArray(shape) || shape.length > MAX_RANK || Number.isNaN(elementCount(shape))) {
    throw fail('BAD_SHAPE', `tensor "${name}" has invalid shape ${JSON.stringify(shape)}`);
  }
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0)) {
    throw fail('HEADER_INVALID', `tensor "${name}" has invalid data_offsets ${JSON.stringify(offsets)}`);
  }
  const [begin, end] = offsets as [number, number];
  if (begin > end || end > dataBytes) {
    throw fail('OFFSETS_OUT_OF_RANGE', `tensor "${name}" offsets [${begin}, ${end}] fall outside the ${dataBytes}-byte data section`);
  }
  const expected = elementCount(shape) * DTYPES[dtype].bytes;
  if (end - begin !== expected) {
    throw fail('SIZE_MISMATCH', `tensor "${name}" ${dtype}${formatShape(shape)} needs ${expected} bytes but its offsets span ${end - begin}`);
  }
  return { name, dtype, shape: shape as number[], begin, end };
}

/** The byte ranges must cover the data section exactly: no overlap, no hole, nothing after the last tensor. */
function checkTiling(entries: HeaderEntry[], dataBytes: number, fail: (c: SafetensorsErrorCode, m: string) => SafetensorsError): void {
  const sorted = [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let cursor = 0;
  let prev = '(start)';
  for (const e of sorted) {
    if (e.begin < cursor) throw fail('OFFSETS_OVERLAP', `tensor "${e.name}" starts at ${e.begin}, inside "${prev}" which ends at ${cursor}`);
    if (e.begin > cursor) throw fail('OFFSETS_GAP', `bytes ${cursor}..${e.begin} between "${prev}" and "${e.name}" belong to no tensor`);
    cursor = e.end;
    prev = e.name;
  }
  if (cursor !== dataBytes) throw fail('OFFSETS_GAP', `bytes ${cursor}..${dataBytes} after the last tensor belong to no tensor`);
}

function finishTensor(entry: HeaderEntry, bytes: Uint8Array, opts: ReadOptions): HostTensor {
  // `bytes` is a fresh, exactly-sized buffer, so the typed-array view is aligned and owns its memory.
  const Ctor = DTYPES[entry.dtype].array;
  const data = new Ctor(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength / DTYPES[entry.dtype].bytes) as TensorData;
  if (opts.halfToFloat32 && entry.dtype === 'F16') return { dtype: 'F32', shape: entry.shape, data: f16ToFloat32(data as Uint16Array) };
  if (opts.halfToFloat32 && entry.dtype === 'BF16') return { dtype: 'F32', shape: entry.shape, data: bf16ToFloat32(data as Uint16Array) };
  return { dtype: entry.dtype, shape: entry.shape, data };
}

function selectEntries(entries: HeaderEntry[], only: Iterable<string> | undefined, source?: string): HeaderEntry[] {
  if (!only) return [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const byName = new Map(entries.map((e) => [e.name, e]));
  return [...new Set(only)].map((name) => {
    const e = byName.get(name);
    if (!e) throw new SafetensorsError('MISSING_TENSOR', `no tensor named "${name}"`, source);
    return e;
  });
}

/** Decode a whole safetensors file held in memory. Tensors are copied out, so `bytes` may be reused. */
export function decodeSafetensors(bytes: Uint8Array, opts: ReadOptions = {}): Safetensors {
  const header = parseHeader(bytes.subarray(0, 8), (n) => bytes.subarray(8, 8 + n), bytes.byteLength);
  const tensors: TensorMap = new Map();
  for (const e of selectEntries(header.entries, opts.only)) {
    const copy = bytes.slice(header.dataStart + e.begin, header.dataStart + e.end);
    tensors.set(e.name, finishTensor(e, copy, opts));
  }
  return { tensors, metadata: header.metadata };
}

/** Read a safetensors file (or bytes). Reads tensor by tensor from disk, never holding the whole file twice. */
export function readSafetensors(pathOrBytes: string | Uint8Array, opts: ReadOptions = {}): Safetensors {
  if (typeof pathOrBytes !== 'string') return decodeSafetensors(pathOrBytes, opts);
  const path = pathOrBytes;
  let fd: number;
  try {
    // Non-blocking: a FIFO in a model folder must fail the check below, not hang the open.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw new SafetensorsError('IO', `cannot open (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, path);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new SafetensorsError('IO', 'not a regular file', path);
    const size = stat.size;
    const readAt = (position: number, length: number): Uint8Array => {
      const buf = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const got = readSync(fd, buf, done, length - done, position + done);
        if (got === 0) throw new SafetensorsError('IO', `file ended early at byte ${position + done}`, path);
        done += got;
      }
      return buf;
    };
    const header = parseHeader(readAt(0, Math.min(8, size)), (n) => readAt(8, n), size, path);
    const tensors: TensorMap = new Map();
    for (const e of selectEntries(header.entries, opts.only, path)) {
      tensors.set(e.name, finishTensor(e, readAt(header.dataStart + e.begin, e.end - e.begin), opts));
    }
    return { tensors, metadata: header.metadata };
  } finally {
    closeSync(fd);
  }
}

/** Bytes of a tensor as it will be stored; F16/BF16 given as Float32Array are rounded to 16 bits here. */
function storedBytes(name: string, t: HostTensor): Uint8Array {
  if (!isDtype(t.dtype)) throw new SafetensorsError('UNKNOWN_DTYPE', `tensor "${name}" has unknown dtype ${JSON.stringify(t.dtype)}`);
  const count = elementCount(t.shape);
  if (Number.isNaN(count)) throw new SafetensorsError('BAD_SHAPE', `tensor "${name}" has invalid shape ${JSON.stringify(t.shape)}`);
  let data = t.data;
  if ((t.dtype === 'F16' || t.dtype === 'BF16') && data instanceof Float32Array) {
    data = t.dtype === 'F16' ? float32ToF16(data) : float32ToBf16(data);
  }
  if (!dataMatchesDtype(t.dtype, data)) {
    throw new SafetensorsError('BAD_TENSOR', `tensor "${name}" is ${t.dtype} but its data is a ${data.constructor.name}`);
  }
  if (data.length !== count) {
    throw new SafetensorsError('SIZE_MISMATCH', `tensor "${name}" shape ${formatShape(t.shape)} has ${count} elements but data has ${data.length}`);
  }
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function buildLayout(tensors: TensorInput, metadata?: Record<string, string>): { header: Uint8Array; parts: Uint8Array[] } {
  const entries = tensors instanceof Map ? [...tensors.entries()] : Object.entries(tensors);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const json: Record<string, unknown> = {};
  if (metadata && Object.keys(metadata).length > 0) {
    for (const [k, v] of Object.entries(metadata)) {
      if (typeof v !== 'string') throw new SafetensorsError('HEADER_INVALID', `metadata "${k}" must be a string`);
    }
    json.__metadata__ = metadata;
  }
  const parts: Uint8Array[] = [];
  let offset = 0;
  for (const [name, t] of entries) {
    if (name === '__metadata__') throw new SafetensorsError('HEADER_INVALID', '"__metadata__" is reserved and cannot name a tensor');
    const bytes = storedBytes(name, t);
    json[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes.byteLength] };
    parts.push(bytes);
    offset += bytes.byteLength;
  }
  const text = new TextEncoder().encode(JSON.stringify(json));
  // Pad with spaces so the data section starts 8-byte aligned (the format's recommendation).
  const padded = Math.ceil(text.byteLength / 8) * 8;
  const header = new Uint8Array(8 + padded).fill(0x20);
  new DataView(header.buffer).setBigUint64(0, BigInt(padded), true);
  header.set(text, 8);
  return { header, parts };
}

export function encodeSafetensors(tensors: TensorInput, metadata?: Record<string, string>): Uint8Array {
  const { header, parts } = buildLayout(tensors, metadata);
  const out = new Uint8Array(header.byteLength + parts.reduce((n, p) => n + p.byteLength, 0));
  out.set(header, 0);
  let at = header.byteLength;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** writeSync may write less than asked (and refuses > 2 GiB at once), so write in bounded chunks until done. */
function writeAll(fd: number, bytes: Uint8Array): void {
  const chunk = 1 << 30;
  let done = 0;
  while (done < bytes.byteLength) {
    done += writeSync(fd, bytes, done, Math.min(chunk, bytes.byteLength - done));
  }
}

/** Write a safetensors file; it appears complete or not at all (temp file + rename). */
export function writeSafetensors(path: string, tensors: TensorInput, metadata?: Record<string, string>): void {
  const { header, parts } = buildLayout(tensors, metadata);
  const tmp = `${path}.tmp-${randomBytes(6).toString('hex')}`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      writeAll(fd, header);
      for (const p of parts) writeAll(fd, p);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    if (e instanceof SafetensorsError) throw e;
    throw new SafetensorsError('IO', `cannot write (${(e as Error).message})`, path);
  }
}
