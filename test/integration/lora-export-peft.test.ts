// A LoRA run exported as a PEFT adapter, end to end: a hub-style model (its tokenizer lacks our role markers) is
// imported, a run trains rank-4 adapters on it, and `envace export --format lora` finds the base itself. PEFT,
// fetched from PyPI into a cache outside the repo (test/helpers/python-deps.ts), loads the adapter onto the base the
// export names (base/, grown by the markers) and must give the logits of our merged export. A run without adapters
// and an imported model are refused with a usage error that says why.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run, RunConfigInput, WorkbenchApi } from '../../electron/contract';
import { createEngine, type Engine } from '../../electron/engine/host';
import { inProcessClient } from '../../electron/engine/in-process';
import { hfShapeFromConfig, hfWeightsFromParams } from '../../electron/engine/models';
import { PRESETS, TextTokenizer, bpeTokenizerConfig, bpeTokenizerJson, exportHfFolder, initParams, resolveConfig, trainBpe } from '../../native-models';
import { SPECIAL_TOKENS } from '../../native-models/tokenizer';
import { lastJson, runEnvace } from '../helpers/cli';
import { settledRun, tempHome } from '../helpers/engine';
import { PYTHON, type PythonDeps, pythonDeps } from '../helpers/python-deps';
import { CORPUS } from '../unit/engine/models/fixtures';

// PEFT 0.21 on Debian's torch 1.13: transformers 4.48 is the newest that runs on it (4.49+ asks for torch ≥ 2.1 or
// imports torch.distributed.tensor), accelerate 0.34 the newest that does not require torch 2.
const REQUIREMENTS = [
  'peft==0.21.*',
  'transformers==4.48.3',
  'accelerate==0.34.2',
  'tokenizers>=0.21,<0.22',
  'huggingface_hub>=0.30,<1.0',
  'safetensors',
  'packaging',
  'filelock',
  'tqdm',
  'regex',
  'fsspec',
  'typing_extensions',
];
// float32 on both sides; PEFT adds B·A·x beside W·x where the merged export folds it into W.
const TOLERANCE = 1e-4;

const home = tempHome('envace-lora-peft-');
let engine: Engine;
let api: WorkbenchApi;
let deps: PythonDeps;
let loraRun: Run;
let fullRun: Run;
let hubVocab = 0;

const config = (over: Partial<RunConfigInput>): RunConfigInput => ({
  env: 'retail',
  worldSize: 5,
  model: { imported: 'hub-nano' },
  seed: 3,
  provider: 'cpu',
  algo: 'sft',
  steps: 3,
  evalEvery: 0,
  checkpointEvery: 3,
  rollout: { k: 1, tasksPerStep: 2, maxTurns: 2, maxTokensPerTurn: 48, maxObservationTokens: 24, toolSchemas: 'none' },
  // A rate high enough that three steps move the adapters well clear of zero (B starts at 0).
  optim: { lr: 3e-2, warmupSteps: 0 },
  ...over,
});

beforeAll(async () => {
  const fetching = pythonDeps('peft-0.21', REQUIREMENTS);
  // A model as a user brings it from the hub: byte-level BPE with only its own <|endoftext|>, a Llama sized to it.
  const bpe = trainBpe(Array.from({ length: 20 }, (_, i) => CORPUS[i % CORPUS.length]), { vocabSize: 300, specialTokens: ['<|endoftext|>'] });
  const tokenizer = new TextTokenizer(bpeTokenizerJson(bpe), bpeTokenizerConfig(bpe, {}));
  hubVocab = tokenizer.vocabSize;
  const model = resolveConfig({ vocabSize: hubVocab, maxSeqLen: 256 }, PRESETS.nano);
  const hubDir = path.join(home, 'hub-nano');
  exportHfFolder(hubDir, { shape: hfShapeFromConfig(model), weights: hfWeightsFromParams(model, initParams(model, 4, 0.05)), tokenizer, modelCard: '# hub-nano\n' });
  engine = createEngine({ home });
  api = inProcessClient(engine);
  await api.call('models.import', { hfDir: hubDir, name: 'hub-nano' });
  loraRun = await settledRun(api, (await api.call('runs.create', { config: config({ name: 'adapters', lora: { rank: 4, alpha: 8, targets: 'attention+mlp' } }), start: true })).id);
  fullRun = await settledRun(api, (await api.call('runs.create', { config: config({ name: 'full', steps: 1, checkpointEvery: 1 }), start: true })).id);
  // The CLI opens the data home itself.
  await engine.close();
  deps = await fetching;
  if (!deps.ok) console.warn(`LoRA export vs PEFT: SKIPPED (${deps.reason})`);
}, 900_000);

afterAll(async () => {
  await engine?.close();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('envace export --format lora', () => {
  const adapterDir = path.join(home, 'out', 'adapter');
  const mergedDir = path.join(home, 'out', 'merged');

  it('finds the base itself, writes the adapter with the grown base in base/, and says which base it applies to', async () => {
    expect(loraRun.status, loraRun.error ?? '').toBe('completed');
    const started = Date.now();
    const cli = await runEnvace(home, 'export', '--run', loraRun.id, '--format', 'lora', '--out', adapterDir);
    expect(cli.code, cli.stderr).toBe(0);
    console.log(`envace export --run ${loraRun.id} --format lora (${((Date.now() - started) / 1000).toFixed(1)} s):\n${cli.stdout}`);
    expect(cli.stdout).toContain('adapter_model.safetensors');
    expect(cli.stdout).toContain('base/model.safetensors');
    expect(cli.stdout).toContain(`imported model "hub-nano" with ${SPECIAL_TOKENS.length} embedding rows added for the role markers`);
    expect(cli.stdout).toContain(`vocabulary ${hubVocab} → ${hubVocab + SPECIAL_TOKENS.length}`);
    expect(cli.stdout).toContain(`AutoModelForCausalLM.from_pretrained(${JSON.stringify(path.join(adapterDir, 'base'))})`);
    const adapterConfig = JSON.parse(fs.readFileSync(path.join(adapterDir, 'adapter_config.json'), 'utf8'));
    expect(adapterConfig).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8, base_model_name_or_path: path.join(adapterDir, 'base') });
    const readme = fs.readFileSync(path.join(adapterDir, 'README.md'), 'utf8');
    expect(readme).toMatch(/## Base model\n\nThe adapter applies to the model run \S+ trained on: imported model "hub-nano"/);
    expect(readme).toContain('lacks those rows: the adapter does not apply to it');
    const merged = await runEnvace(home, 'export', '--run', loraRun.id, '--format', 'hf', '--out', mergedDir);
    expect(merged.code, merged.stderr).toBe(0);
  });

  it('loads in PEFT onto the exported base with no warnings and gives the logits of our merged export', async (ctx) => {
    if (!deps.ok) return ctx.skip(deps.reason);
    const out = path.join(home, 'out', 'peft.json');
    const started = Date.now();
    const py = spawnSync(PYTHON, [path.join(import.meta.dirname, 'lora_peft_check.py'), adapterDir, mergedDir, out], { encoding: 'utf8', env: deps.env });
    expect(py.status, `lora_peft_check.py failed:\n${py.stderr}`).toBe(0);
    const r = JSON.parse(fs.readFileSync(out, 'utf8'));
    console.log(`PEFT ${r.versions.peft}, transformers ${r.versions.transformers}, torch ${r.versions.torch} (${((Date.now() - started) / 1000).toFixed(1)} s): max |PEFT − merged| = ${r.maxAbsDiff.toExponential(2)} over logits up to ${r.maxAbsLogit.toFixed(2)}; the adapter moves the base's logits by up to ${r.adapterEffect.toExponential(2)}`);
    expect(r.warnings).toEqual([]);
    expect(r.versions.peft).toMatch(/^0\.21\./);
    expect(r.basePath).toBe(path.join(adapterDir, 'base'));
    // The base is the grown one: the markers are single tokens past the hub vocabulary, with embedding rows.
    expect(r.baseVocab).toBe(hubVocab + SPECIAL_TOKENS.length);
    expect(r.mergedVocab).toBe(r.baseVocab);
    expect(Object.values(r.markerIds).every((id) => (id as number) >= hubVocab)).toBe(true);
    // The adapter matters (three steps moved it), and PEFT applies it as our merge does.
    expect(r.adapterEffect).toBeGreaterThan(100 * TOLERANCE);
    expect(r.maxAbsDiff).toBeLessThan(TOLERANCE);
  });

  it('leaves the base out on request and names the imported folder with a warning; refuses runs and models without adapters', async () => {
    const lean = await runEnvace(home, 'export', '--run', loraRun.id, '--format', 'lora', '--no-base', '--out', path.join(home, 'out', 'lean'), '--json');
    expect(lean.code, lean.stderr).toBe(0);
    const record = lastJson(lean.stdout);
    expect(record.files.map((f: { name: string }) => f.name)).toEqual(['README.md', 'adapter_config.json', 'adapter_model.safetensors']);
    expect(record.notes[1]).toMatch(/not in this folder .*models[/\\]hub-nano, which lacks those rows/);
    expect(fullRun.status, fullRun.error ?? '').toBe('completed');
    const full = await runEnvace(home, 'export', '--run', fullRun.id, '--format', 'lora');
    expect(full.code).toBe(2);
    expect(full.stderr).toMatch(/trained every weight \(lora\.rank 0\), so it has no adapter to export/);
    const model = await runEnvace(home, 'export', '--model', 'hub-nano', '--format', 'lora');
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(/an imported model has no LoRA adapter/);
    const misuse = await runEnvace(home, 'export', '--run', fullRun.id, '--format', 'hf', '--base');
    expect(misuse.code).toBe(2);
    expect(misuse.stderr).toMatch(/--base and --no-base are for --format lora/);
  });
});
