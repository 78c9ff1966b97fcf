import os from 'node:os';
import { preset } from '../../../native-models/presets';
import { countParams, type ModelConfig, paramSpecs } from '../../../native-models/transformer/config';
import { plannedSteps, type RunConfig } from '../../contract';
import { envOptions } from '../algorithms/env-options';
import { getEnv } from '../envs/registry';
import { SPLITS } from '../envs/types';
import { loraOf } from '../algorithms/lora-config';
import { checkDemonstrationsFile } from '../algorithms/demos';
import { layoutCurriculumProblem } from '../algorithms/layout-curriculum';
import { UserPathError } from '../home/user-paths';
import { type PreflightEstimate, trainingChecks } from './preflight-training';

const BYTES = 4; // float32 everywhere in training

/**
 * Training memory, roughly: weights + gradients + two AdamW moments, plus the activations of one
 * micro-batch kept for the backward pass (per layer: the residual stream and its projections,
 * the MLP, the attention probabilities; then the logits and their softmax).
 */
export function trainingMemoryEstimate(c: ModelConfig, microBatchTokens: number): number {
  // Every weight once; trained ones (all, or only LoRA adapters) also carry a gradient and two moments.
  const trained = paramSpecs(c).filter((s) => s.trainable).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0);
  const state = (countParams(c) + 3 * trained) * BYTES;
  const seq = Math.min(c.maxSeqLen, microBatchTokens);
  const perLayer = microBatchTokens * (12 * c.dModel + 3 * c.dFf + 2 * c.nHeads * seq);
  const activations = (c.nLayers * perLayer + 2 * microBatchTokens * c.vocabSize) * BYTES;
  return state + activations;
}

/** Model size, memory and tokenizer checks of the run's model: a preset, or an imported one in `modelsDir`. */
async function modelChecks(config: RunConfig, modelsDir: string | undefined): Promise<{ params: number | null; memoryEstimateBytes: number | null; checks: Check[] }> {
  let model: ModelConfig;
  let tokenizerCheck: Check;
  const lora = loraOf(config);
  if ('preset' in config.model) {
    if (lora) return { params: null, memoryEstimateBytes: null, checks: [{ name: 'model', ok: false, detail: 'LoRA adapters train on a pretrained model: pick an imported model, or set lora.rank to 0' }] };
    model = preset(config.model.preset);
    // From-scratch models get a byte-level BPE trained on the environment's own texts.
    tokenizerCheck = { name: 'tokenizer', ok: true, detail: 'byte-level BPE trained on the environment texts: every byte is covered' };
  } else {
    const name = config.model.imported;
    // Loaded here, not at the top: the model registry pulls in the model stack (ONNX Runtime
    // included), which the engine's main thread does not load at start-up.
    const [{ listModels }, { SPECIAL_TOKENS, loadTokenizer }] = await Promise.all([import('../models/registry'), import('../../../native-models/tokenizer')]);
    const entry = modelsDir ? listModels(modelsDir).find((m) => m.name === name) : undefined;
    if (!entry) return { params: null, memoryEstimateBytes: null, checks: [{ name: 'model', ok: false, detail: `no imported model named "${name}"; import one with \`npx envace import --hf DIR\`` }] };
    model = lora ? { ...entry.config, lora } : entry.config;
    try {
      const tokenizer = loadTokenizer(entry.path);
      const missing = SPECIAL_TOKENS.filter((t) => tokenizer.tokenToId(t) === undefined).length;
      tokenizerCheck = {
        name: 'tokenizer',
        ok: true,
        detail: `${entry.name}'s own tokenizer (${tokenizer.vocabSize} ids)${missing ? `; ${missing} role markers (<|act|>, <|obs|>, …) are added as special tokens with new embedding rows` : ''}`,
      };
    } catch (e) {
      tokenizerCheck = { name: 'tokenizer', ok: false, detail: `${entry.name}'s tokenizer cannot be loaded: ${(e as Error).message}` };
    }
  }
  const params = countParams(model);
  const memoryEstimateBytes = trainingMemoryEstimate(model, config.optim.microBatchTokens);
  const free = os.freemem();
  const memory: Check = {
    name: 'memory',
    ok: memoryEstimateBytes < free,
    detail: `about ${(memoryEstimateBytes / 2 ** 30).toFixed(2)} GiB for training (${(params / 1e6).toFixed(2)}M parameters); ${(free / 2 ** 30).toFixed(1)} GiB free now`,
  };
  return { params, memoryEstimateBytes, checks: [memory, tokenizerCheck] };
}

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/**
 * Files a run config names that the request may not use, as contract issues: outside `roots` (a
 * request from the workbench window), missing, not a regular file (a FIFO would hang the job, a
 * device read without end) or over the size limit. For runs.create and runs.preflight.
 */
export function runConfigFileProblems(config: RunConfig, roots?: readonly string[]): Array<{ path: string; message: string }> {
  const file = config.sft.demonstrationsFile;
  // The file is read whenever it is the demonstrations source: for SFT, and for a fresh tokenizer's corpus.
  if (config.sft.demonstrations !== 'file' || file === undefined) return [];
  try {
    checkDemonstrationsFile(file, roots);
    return [];
  } catch (error) {
    if (error instanceof UserPathError) return [{ path: 'config.sft.demonstrationsFile', message: error.message }];
    throw error;
  }
}

/**
 * Sampling knobs an RL method cannot train with honestly. The update's ratio π_θ/π_old needs π_θ
 * under the distribution the rollouts were sampled from: the trainer scores softmax(logits / T), so
 * any T > 0 is exact. A top-p nucleus is a different distribution per token (renormalised over a
 * set that depends on the logits); matching it would mean shipping each token's nucleus to the
 * trainer and masking the vocabulary there, so it is refused rather than silently biased. T = 0
 * samples nothing: every rollout of a group is the same and no group carries a signal.
 */
export function rlSamplingProblem(config: RunConfig): string | undefined {
  if (config.algo === 'sft') return undefined;
  if (config.rollout.topP < 1)
    return `rollout.topP is ${config.rollout.topP}: RL methods train on a ratio against the sampling distribution, which top-p truncation changes per token and the trainer cannot reproduce; set rollout.topP to 1 (use rollout.temperature to sharpen sampling)`;
  if (config.rollout.temperature === 0)
    return 'rollout.temperature is 0: greedy rollouts of a task are all alike, so GRPO groups carry no signal; set a temperature above 0';
  return undefined;
}

export interface PreflightOptions {
  /** Folders the config's files must be inside (a request from the workbench window); undefined: anywhere. */
  roots?: readonly string[];
  /** Wall time for recording demonstrations before the context check counts on a sample (preflight-training.ts DEMO_BUDGET_MS). */
  demoBudgetMs?: number;
  /** Which execution providers load here; default: probe in this process (once, cached). */
  providers?: () => Promise<ReadonlyArray<{ provider: 'cpu' | 'cuda' | 'webgpu'; available: boolean; detail?: string }>>;
}

/**
 * The device a run will train on, from its provider knob and what loads here, chosen the way
 * createSession chooses (auto: cuda, then webgpu, then cpu; a named GPU falls back to cpu). A
 * fallback still trains, so the check passes; its line says why the GPU is not used.
 */
export async function deviceCheck(provider: RunConfig['provider'], providers: NonNullable<PreflightOptions['providers']>): Promise<Check> {
  if (provider === 'cpu') return { name: 'device', ok: true, detail: 'cpu (provider cpu)' };
  const reports = await providers();
  const wanted: Array<'cuda' | 'webgpu'> = provider === 'auto' ? ['cuda', 'webgpu'] : [provider];
  const chosen = wanted.find((p) => reports.find((r) => r.provider === p)?.available);
  if (chosen) return { name: 'device', ok: true, detail: chosen };
  const why = wanted.map((p) => `${p} not available: ${reports.find((r) => r.provider === p)?.detail ?? 'not probed'}`).join('; ');
  return { name: 'device', ok: true, detail: `cpu (${why})` };
}

async function probeHere() {
  // Loaded on demand: the engine's main thread does not load ONNX Runtime at start-up.
  const { availableProviders } = await import('../../../native-models/runtime/session');
  return availableProviders();
}

export async function preflight(config: RunConfig, modelsDir?: string, options: PreflightOptions = {}): Promise<{
  ok: boolean;
  checks: Array<{ name: string; ok: boolean; detail: string }>;
  params: number | null;
  memoryEstimateBytes: number | null;
  taskCounts: { train: number; heldout: number; ood: number } | null;
  plannedSteps: number;
  estimate: PreflightEstimate;
}> {
  const checks: Array<{ name: string; ok: boolean; detail: string }> = [{ name: 'config', ok: true, detail: 'valid against the run schema' }];
  let taskCounts: { train: number; heldout: number; ood: number } | null = null;
  // The file's confinement does not depend on the environment: checked first, so a refused file is never opened below.
  if (config.sft.demonstrations === 'file') {
    const problem = config.sft.demonstrationsFile === undefined ? "sft.demonstrations is 'file' but sft.demonstrationsFile is not set" : runConfigFileProblems(config, options.roots)[0]?.message;
    checks.push({ name: 'demonstrations', ok: problem === undefined, detail: problem ?? `sft.demonstrationsFile ${config.sft.demonstrationsFile} is a readable file` });
  }
  try {
    const env = await getEnv(config.env, envOptions(config));
    taskCounts = Object.fromEntries(SPLITS.map((s) => [s, env.tasks(s).length])) as { train: number; heldout: number; ood: number };
    const trainable = taskCounts.train > 0;
    checks.push({
      name: 'environment',
      ok: trainable,
      detail: trainable
        ? `${env.id} reachable: ${taskCounts.train} train, ${taskCounts.heldout} held-out, ${taskCounts.ood} ood tasks`
        : `${env.id} has no training tasks`,
    });
    const needsDemos = config.algo === 'sft' || config.algo === 'sft+envace' || config.sft.steps > 0;
    if (config.sft.demonstrations !== 'file' && needsDemos) {
      checks.push({
        name: 'demonstrations',
        ok: env.expert !== undefined,
        detail: env.expert ? 'scripted expert available for SFT' : `${env.id} has no scripted expert; give a JSONL file (sft.demonstrations = file)`,
      });
    }
  } catch (error) {
    checks.push({ name: 'environment', ok: false, detail: (error as Error).message });
  }
  const { params, memoryEstimateBytes, checks: modelResults } = await modelChecks(config, modelsDir);
  checks.push(...modelResults);
  checks.push(await deviceCheck(config.provider, options.providers ?? probeHere));
  const sampling = rlSamplingProblem(config);
  if (sampling) checks.push({ name: 'sampling', ok: false, detail: sampling });
  const curriculum = layoutCurriculumProblem(config);
  if (curriculum) checks.push({ name: 'layout curriculum', ok: false, detail: curriculum });
  // RWML's embedding similarity needs a sentence-embedding model, which the engine does not ship.
  if ((config.algo === 'rwml' || config.algo === 'rwml+grpo-real') && config.rwml.similarity === 'embedding')
    checks.push({ name: 'rwml', ok: false, detail: "similarity 'embedding' needs a sentence-embedding model, which is not available; use json-f1, rouge-l or char-ngram-cos" });
  // What training itself will do: stages, context fit, format budget, time and disk (preflight-training.ts).
  const demonstrationsFileRefused = checks.some((c) => c.name === 'demonstrations' && !c.ok);
  const training = await trainingChecks(config, modelsDir, { demoBudgetMs: options.demoBudgetMs, demonstrationsFileRefused });
  checks.push(...training.checks);
  return { ok: checks.every((c) => c.ok), checks, params, memoryEstimateBytes, taskCounts, plannedSteps: plannedSteps(config), estimate: training.estimate };
}
