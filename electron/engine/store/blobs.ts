/** Token ids travel as int32 blobs and per-token floats as float32 blobs (little-endian). */
export function int32Blob(values: ArrayLike<number> | null | undefined): Buffer | null {
  if (!values) return null;
  const array = Int32Array.from(values as ArrayLike<number>);
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

export function float32Blob(values: ArrayLike<number> | null | undefined): Buffer | null {
  if (!values) return null;
  const array = Float32Array.from(values as ArrayLike<number>);
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

export function blobInt32(blob: Buffer | null): number[] | null {
  if (!blob) return null;
  const copy = new Uint8Array(blob); // aligned copy: a Buffer may sit at any offset of its pool
  return Array.from(new Int32Array(copy.buffer, 0, copy.byteLength >> 2));
}

export function blobFloat32(blob: Buffer | null): number[] | null {
  if (!blob) return null;
  const copy = new Uint8Array(blob);
  return Array.from(new Float32Array(copy.buffer, 0, copy.byteLength >> 2));
}
