// The AdamW optimizer graph (bias correction, decoupled weight decay on matrices only, global-norm
// clipping) against torch.optim.AdamW + clip_grad_norm_ over several steps.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HostTensor } from '../../native-models/io/dtype';
import { readSafetensors, writeSafetensors } from '../../native-models/io/safetensors';
import type { ParamSpec } from '../../native-models/transformer/config';
import { buildOptimizerGraph } from '../../native-models/transformer/graphs';
import { compile, ortTensor, randomArray, rng } from '../unit/native-models/support';

const PYTHON = '/usr/bin/python3';
const HAS_TORCH = spawnSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;

const PARAMS: ParamSpec[] = [
  { name: 'w', shape: [4, 3], dtype: 'float32', trainable: true, decay: true },
  { name: 'norm', shape: [3], dtype: 'float32', trainable: true, decay: false },
  { name: 'emb', shape: [5, 2], dtype: 'float32', trainable: true, decay: true },
];
// Step 1 clips (norm of random grads ≈ 3 > 0.5); steps 0 and 2 do not.
const STEPS = [{ lr: 1e-2, max_grad_norm: 100 }, { lr: 5e-3, max_grad_norm: 0.5 }, { lr: 2e-3, max_grad_norm: 100 }];
const HYPER = { beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0.1 };

let dir = '';
afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

const SKIPPED = HAS_TORCH ? '' : ' (SKIPPED: /usr/bin/python3 cannot import torch)';
if (!HAS_TORCH) console.warn(`optimizer parity vs torch.optim.AdamW${SKIPPED}`);

describe.skipIf(!HAS_TORCH)(`optimizer parity vs torch.optim.AdamW${SKIPPED}`, () => {
  it('matches parameters, moments and gradient norms after three steps (rtol 1e-5)', async () => {
    const rand = rng(42);
    const size = (s: ParamSpec) => s.shape.reduce((a, b) => a * b, 1);
    const init = new Map(PARAMS.map((s) => [s.name, randomArray(size(s), rand)]));
    const grads = STEPS.map(() => new Map(PARAMS.map((s) => [s.name, randomArray(size(s), rand)])));
    dir = mkdtempSync(join(tmpdir(), 'envace-adamw-'));
    const tensors = new Map<string, HostTensor>();
    const f32 = (s: ParamSpec, v: number[]): HostTensor => ({ dtype: 'F32', shape: [...s.shape], data: Float32Array.from(v) });
    for (const s of PARAMS) {
      tensors.set(`param.${s.name}`, f32(s, init.get(s.name)!));
      grads.forEach((g, k) => tensors.set(`grad${k}.${s.name}`, f32(s, g.get(s.name)!)));
    }
    writeSafetensors(join(dir, 'inputs.safetensors'), tensors);
    writeFileSync(join(dir, 'case.json'), JSON.stringify({ params: PARAMS.map(({ name, decay }) => ({ name, decay })), steps: STEPS, ...HYPER }));
    const py = spawnSync(PYTHON, [join(import.meta.dirname, 'adamw_reference.py'), dir], { encoding: 'utf8' });
    expect(py.status, py.stderr).toBe(0);
    const ref = readSafetensors(join(dir, 'outputs.safetensors')).tensors;

    const session = await compile(buildOptimizerGraph(PARAMS));
    const state = new Map<string, number[]>();
    for (const s of PARAMS) {
      state.set(`param.${s.name}`, init.get(s.name)!);
      state.set(`m.${s.name}`, new Array(size(s)).fill(0));
      state.set(`v.${s.name}`, new Array(size(s)).fill(0));
    }
    for (const [k, step] of STEPS.entries()) {
      const scalars = { lr: step.lr, beta1: HYPER.beta1, beta2: HYPER.beta2, eps: HYPER.eps, weight_decay: HYPER.weight_decay, max_grad_norm: step.max_grad_norm, step: k + 1 };
      const feeds = Object.fromEntries(Object.entries(scalars).map(([n, v]) => [n, ortTensor('float32', [v], [])]));
      for (const s of PARAMS) {
        for (const slot of ['param', 'm', 'v']) feeds[`${slot}.${s.name}`] = ortTensor('float32', state.get(`${slot}.${s.name}`)!, s.shape);
        feeds[`grad.${s.name}`] = ortTensor('float32', grads[k].get(s.name)!, s.shape);
      }
      const out = await session.run(feeds);
      const refNorm = (ref.get(`grad_norm${k}`)!.data as Float32Array)[0];
      expect((out.grad_norm.data as Float32Array)[0]).toBeCloseTo(refNorm, 5);
      for (const s of PARAMS) for (const slot of ['param', 'm', 'v']) state.set(`${slot}.${s.name}`, Array.from(out[`new_${slot}.${s.name}`].data as Float32Array));
    }
    for (const [name, ours] of state) {
      const theirs = ref.get(name)!.data as Float32Array;
      ours.forEach((v, i) => expect(Math.abs(v - theirs[i]), `${name}[${i}]: ${v} vs ${theirs[i]}`).toBeLessThanOrEqual(1e-7 + 1e-5 * Math.abs(theirs[i])));
    }
  });
});

