// Our dequantisation of every ggml type the GGUF import takes against llama.cpp's own reader (gguf-py's
// gguf.quants.dequantize, fetched from PyPI): random blocks, the same bytes on both sides, the same float32
// bits out. gguf 0.17.1 runs on Debian's numpy 1.24 and imports nothing beyond numpy and pyyaml.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GGML_READ_TYPES, type GgmlReadType, dequantize } from '../../native-models/io/gguf-quants';
import { PYTHON, type PythonDeps, pythonDeps } from '../helpers/python-deps';

const dir = mkdtempSync(join(tmpdir(), 'gguf-quants-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let deps: PythonDeps;

beforeAll(async () => {
  deps = await pythonDeps('gguf', ['gguf==0.17.1']);
  if (!deps.ok) return;
  const r = spawnSync(PYTHON, [join(__dirname, 'gguf_quants_reference.py'), dir, '7'], { env: deps.env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gguf_quants_reference.py failed:\n${r.stderr}`);
});

describe('GGUF dequantisation against gguf.quants.dequantize', () => {
  it.for(Object.keys(GGML_READ_TYPES) as GgmlReadType[])('%s gives the same float32 bits', (type, ctx) => {
    if (!deps.ok) return ctx.skip(deps.reason);
    const raw = new Uint8Array(readFileSync(join(dir, `${type}.bin`)));
    const ref = new Float32Array(new Uint8Array(readFileSync(join(dir, `${type}.f32`))).buffer);
    const ours = dequantize(type, raw, ref.length);
    // Reference values that are all one number would let a broken unpacking pass.
    expect(new Set(ref).size).toBeGreaterThan(ref.length / 64);
    let mismatches = 0;
    const oursBits = new Uint32Array(ours.buffer);
    const refBits = new Uint32Array(ref.buffer);
    for (let i = 0; i < ref.length; i++) if (oursBits[i] !== refBits[i]) mismatches++;
    expect(mismatches, `first: ${ours.findIndex((v, i) => oursBits[i] !== refBits[i])}`).toBe(0);
  });
});
