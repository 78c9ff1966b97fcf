// GPU checks, for a machine with an NVIDIA GPU and `envace gpu setup` done: the CUDA provider must
// compute what the CPU provider computes (train step and decode, float32 tolerance), and the
// figures say what it buys. Not a vitest file (vitest picks up *.test.ts only): it needs a GPU
// and minutes. Run: test/gpu/run.sh [--presets nano,tiny] [--steps 3]
// Exit: 0 passed or skipped (no GPU here, said why), 1 a parity check failed, 4 a GPU is there but
// the CUDA provider does not load (run `envace gpu setup`). `--device cpu` compares the CPU with
// itself: it checks this script on any machine (test/gpu/gpu-checks.test.ts runs it so).
import { parseArgs } from 'node:util';
import { detectGpu } from '../../electron/engine/system/gpu-setup';
import { availableProviders, PRESETS, Trainer, type PresetName, type TrainerOptions } from '../../native-models';

const { values } = parseArgs({ options: { presets: { type: 'string', default: 'nano,tiny' }, steps: { type: 'string', default: '3' }, device: { type: 'string', default: 'cuda' } } });
if (values.device !== 'cuda' && values.device !== 'cpu') throw new Error(`--device is cuda or cpu, not ${values.device}`);
const device = values.device;
const presets = values.presets.split(',').map((p) => p.trim()) as PresetName[];
const steps = Number(values.steps);

// Tolerances for float32 on two devices: reductions run in another order, and the CUDA provider may
// use TF32 for MatMul on Ampere and later (10-bit mantissa inputs), so a few 1e-3 relative.
const LOSS_RTOL = 2e-3;
const UPDATE_COSINE_MIN = 0.999;
const LOGPROB_ATOL = 5e-3;

if (device === 'cuda') {
  const detection = detectGpu();
  if (!detection.ok) {
    console.log(`gpu checks skipped: ${detection.message}`);
    process.exit(0);
  }
  const cuda = (await availableProviders()).find((p) => p.provider === 'cuda');
  if (!cuda?.available) {
    console.log(`gpu checks skipped: ${detection.message}, but the CUDA provider does not load: ${cuda?.detail ?? 'not probed'} (run \`envace gpu setup\`)`);
    process.exit(4);
  }
  console.log(`gpu checks: ${detection.message}`);
} else {
  console.log('gpu checks: cpu against cpu (checks this script, not a GPU)');
}

const failures: string[] = [];
const check = (ok: boolean, what: string) => {
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

async function trainer(name: PresetName, provider: 'cpu' | 'cuda'): Promise<Trainer> {
  const options: TrainerOptions = {
    config: PRESETS[name],
    objective: { sft: { aggregation: 'token-mean' } },
    seed: 0,
    // A silent fallback would compare the CPU with itself.
    session: { provider, onFallback: (m) => failures.push(`${name}: ${provider} fell back: ${m}`) },
  };
  const t = await Trainer.create(options);
  if (t.provider !== provider) throw new Error(`${name}: asked for ${provider}, the trainer runs on ${t.provider}`);
  return t;
}

function batchFor(name: PresetName, rows = 4, len = 64) {
  const V = PRESETS[name].vocabSize;
  const tokens = Array.from({ length: rows }, (_, b) => Array.from({ length: len + 1 }, (_, i) => (b * 131 + i * 17) % V));
  return { tokens, sftMask: tokens.map((r) => r.map(() => 1)) };
}

function updateCosine(before: Map<string, Float32Array>, a: Map<string, Float32Array>, b: Map<string, Float32Array>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [key, start] of before) {
    const [x, y] = [a.get(key)!, b.get(key)!];
    for (let i = 0; i < start.length; i++) {
      const [da, db] = [x[i] - start[i], y[i] - start[i]];
      dot += da * db;
      na += da * da;
      nb += db * db;
    }
  }
  return dot / Math.sqrt(na * nb);
}

async function timed<T>(body: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await body();
  return [value, performance.now() - t0];
}

const figures: Array<Record<string, string | number>> = [];
// The other side's column name (a cpu self-check would otherwise overwrite the cpu column).
const side = device === 'cpu' ? 'cpu again' : device;
for (const name of presets) {
  console.log(`${name}:`);
  const [cpu, gpu] = [await trainer(name, 'cpu'), await trainer(name, device)];
  const before = cpu.getParams() as Map<string, Float32Array>;
  const batch = batchFor(name);
  const ms = { cpu: [] as number[], device: [] as number[] };
  for (let s = 0; s < steps; s++) {
    const [a, ta] = await timed(() => cpu.trainStep(batch));
    const [b, tb] = await timed(() => gpu.trainStep(batch));
    ms.cpu.push(ta);
    ms.device.push(tb);
    const rel = Math.abs(a.loss - b.loss) / Math.max(Math.abs(a.loss), 1e-6);
    check(rel <= LOSS_RTOL, `train step ${s + 1}: loss cpu ${a.loss.toFixed(6)} ${device} ${b.loss.toFixed(6)} (rel ${rel.toExponential(2)} ≤ ${LOSS_RTOL})`);
  }
  const cosine = updateCosine(before, cpu.getParams() as Map<string, Float32Array>, gpu.getParams() as Map<string, Float32Array>);
  check(cosine >= UPDATE_COSINE_MIN, `weight updates after ${steps} steps point the same way (cosine ${cosine.toFixed(6)} ≥ ${UPDATE_COSINE_MIN})`);

  // Decode: the device's greedy generation with its KV cache, scored again by the CPU teacher-forced.
  const prompts = batchFor(name, 2, 16).tokens;
  const newTokens = 16;
  const [generated, decodeMs] = await timed(() => gpu.generate(prompts, { maxNewTokens: newTokens, temperature: 0 }));
  const rows = prompts.map((p, i) => [...p, ...generated[i].tokens]);
  const scored = (await cpu.logprobs(rows)).logprobs;
  let worst = 0;
  generated.forEach((g, i) => {
    const cpuTail = scored[i].slice(prompts[i].length, prompts[i].length + g.tokens.length);
    g.logprobs.forEach((lp, t) => (worst = Math.max(worst, Math.abs(lp - cpuTail[t]))));
  });
  check(worst <= LOGPROB_ATOL, `decode: ${device}'s generated log-probs match the CPU's scoring (max |Δ| ${worst.toExponential(2)} ≤ ${LOGPROB_ATOL})`);
  const [, cpuDecodeMs] = await timed(() => cpu.generate(prompts, { maxNewTokens: newTokens, temperature: 0 }));

  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const tokens = batch.tokens.length * (batch.tokens[0].length - 1);
  figures.push({
    preset: name,
    'train tok/s cpu': Math.round(tokens / (median(ms.cpu) / 1000)),
    [`train tok/s ${side}`]: Math.round(tokens / (median(ms.device) / 1000)),
    'decode tok/s cpu': Math.round((prompts.length * newTokens) / (cpuDecodeMs / 1000)),
    [`decode tok/s ${side}`]: Math.round((prompts.length * newTokens) / (decodeMs / 1000)),
  });
  await cpu.release();
  await gpu.release();
}

// Figures, never pass/fail: the first CUDA step includes kernel selection, hence the median.
console.log('figures (median train step of a 4×64 batch; greedy decode of 2×16 tokens, first call):');
console.table(figures);
if (failures.length) {
  console.log(`gpu checks: ${failures.length} failed`);
  process.exit(1);
}
console.log('gpu checks: all passed');
