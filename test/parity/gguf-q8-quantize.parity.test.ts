// Our Q8_0 quantiser (the GGUF export's q8_0) against llama.cpp's own Python one, gguf-py's gguf.quants.quantize
// (the reference quantize_row_q8_0 ported bit-exactly): the same float32 rows in, the same block bytes out, and
// gguf-py's dequantisation of our blocks equal to ours. The rows hold random weights at several scales plus the
// cases a rounding slip would show in: exact halves (ties round away from zero), an all-zero block, a block of
// one repeated value, subnormal-small and large weights.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dequantize, quantizeQ8_0 } from '../../native-models/io/gguf-quants';
import { PYTHON, type PythonDeps, pythonDeps } from '../helpers/python-deps';

const dir = mkdtempSync(join(tmpdir(), 'gguf-q8-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ROW = 256;

/** Rows of ROW weights; a seeded generator so a failure reproduces. */
function rows(): Float32Array {
  let s = 12345;
  const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
  const out: number[] = [];
  for (const scale of [0.02, 1, 300, 1e-6]) for (let i = 0; i < 8 * ROW; i++) out.push(gauss() * scale);
  // max |x| 127 makes d = 1 and 1/d = 1, so k + 0.5 is an exact tie for roundf.
  const ties = [127, ...Array.from({ length: 31 }, (_, j) => (j % 2 ? -1 : 1) * (j + 0.5))];
  const special = [...ties, ...new Array(32).fill(0), ...new Array(32).fill(-0.37), ...Array.from({ length: 32 }, (_, j) => (j - 16) * 1e-40)];
  out.push(...special, ...Array.from({ length: ROW - special.length }, (_, j) => Math.sin(j) * 65000));
  return Float32Array.from(out);
}

const values = rows();
let deps: PythonDeps;

beforeAll(async () => {
  deps = await pythonDeps('gguf', ['gguf==0.17.1']);
  if (!deps.ok) return;
  writeFileSync(join(dir, 'x.f32'), new Uint8Array(values.buffer));
  writeFileSync(join(dir, 'ours.q8'), quantizeQ8_0(values));
  const script = [
    'import sys, numpy as np',
    'from gguf.constants import GGMLQuantizationType as T',
    'from gguf.quants import quantize, dequantize',
    'd = sys.argv[1]',
    `x = np.fromfile(d + '/x.f32', dtype='<f4').reshape(-1, ${ROW})`,
    "quantize(x, T.Q8_0).tofile(d + '/theirs.q8')",
    `ours = np.fromfile(d + '/ours.q8', dtype=np.uint8).reshape(x.shape[0], -1)`,
    "dequantize(ours, T.Q8_0).astype('<f4').tofile(d + '/ours-by-gguf.f32')",
  ].join('\n');
  const r = spawnSync(PYTHON, ['-c', script, dir], { env: deps.env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gguf-py Q8_0 reference failed:\n${r.stderr}`);
});

describe('Q8_0 quantisation against gguf-py', () => {
  it("gives gguf.quants.quantize's bytes, block for block", (ctx) => {
    if (!deps.ok) return ctx.skip(deps.reason);
    const ours = quantizeQ8_0(values);
    const theirs = new Uint8Array(readFileSync(join(dir, 'theirs.q8')));
    expect(theirs.length).toBe(ours.length);
    const differing: number[] = [];
    for (let b = 0; b < ours.length / 34; b++) if (ours.subarray(b * 34, b * 34 + 34).some((x, j) => x !== theirs[b * 34 + j])) differing.push(b);
    expect(differing).toEqual([]);
    // The ties block really held ties: 0.5 → 1, -1.5 → -2, 2.5 → 3 (half away from zero).
    const tieBlock = (values.length - ROW) / 32; // the last row starts with it
    expect(Array.from(new Int8Array(ours.buffer, tieBlock * 34 + 2, 4))).toEqual([127, 1, -2, 3]);
  });

  it('dequantises to the bits gguf.quants.dequantize reads from our blocks, within half a step of the input', (ctx) => {
    if (!deps.ok) return ctx.skip(deps.reason);
    const blocks = quantizeQ8_0(values);
    const ours = dequantize('Q8_0', blocks, values.length);
    const ref = new Float32Array(new Uint8Array(readFileSync(join(dir, 'ours-by-gguf.f32'))).buffer);
    const [a, b] = [new Uint32Array(ours.buffer), new Uint32Array(ref.buffer)];
    expect(a.findIndex((x, i) => x !== b[i])).toBe(-1);
    // Each weight within half a quantisation step of itself, plus 127 times the f16 rounding of the scale
    // (relative 2^-11, or half of f16's smallest subnormal step 2^-24 where the scale is that small).
    for (let blk = 0; blk < values.length / 32; blk++) {
      const x = values.subarray(blk * 32, blk * 32 + 32);
      const amax = Math.max(...Array.from(x, Math.abs));
      const bound = (amax / 254) * (1 + 2 ** -20) + 127 * Math.max((amax / 127) * 2 ** -11, 2 ** -25);
      for (let j = 0; j < 32; j++) expect(Math.abs(ours[blk * 32 + j] - x[j])).toBeLessThanOrEqual(bound);
    }
  });

  it('refuses a row that is not whole blocks and a non-finite weight', () => {
    expect(() => quantizeQ8_0(new Float32Array(33))).toThrow(/whole number of 32-weight/);
    expect(() => quantizeQ8_0(Float32Array.from({ length: 32 }, (_, i) => (i === 5 ? Number.NaN : 1)))).toThrow(/weight 5 is NaN/);
  });
});
