import path from 'node:path';
import { readFileSync } from 'node:fs';
import { ContractError, LORA_FROM_MODEL, type ExportFormat, type LoraBaseChoice, type ModelSummary, type Run, loraExportProblem } from '../../contract';
import type { ExportOptions, LoraBaseOptions, ModelCard, ModelEntry } from '../models';

// Loaded on first use: the model I/O pulls in the whole model stack (ONNX Runtime included),
// which the engine's start-up and the CLI's quick commands should not pay for.
type ModelsModule = typeof import('../models');
let modelsModule: Promise<ModelsModule> | undefined;
/** The model stack (and ONNX Runtime under it) loads on first use, never with the engine host (test/integration/startup.test.ts). */
export const models = () => (modelsModule ??= import('../models'));
type HubModule = typeof import('../models/hub');
let hubModule: Promise<HubModule> | undefined;
const hub = () => (hubModule ??= import('../models/hub'));
import type { EngineServices, RequestContext } from '../system/services';
import type { VerlRun } from '../models/verl/export';
import { checkpointDir } from '../runs/training';
import { UserPathError, confineUserPath, rootsForTransport } from '../home/user-paths';
import { envOptions } from '../algorithms/env-options';
import type { HandlerGroup } from './types';
import { randomUUID } from 'node:crypto';
import { EtaEstimator } from '../jobs/eta';
import { hubCacheDir } from '../models/hub/cache';

const summary = (e: ModelEntry): ModelSummary => ({
  name: e.name,
  source: e.source,
  importedAt: e.importedAt,
  architecture: e.architecture,
  paramCount: e.paramCount,
  vocabSize: e.config.vocabSize,
  dModel: e.config.dModel,
  nLayers: e.config.nLayers,
});

/** How to load an export with common tools (shown in the Export view and the CLI). */
export function loadSnippet(format: ExportFormat, outDir: string, files: ReadonlyArray<{ name: string }> = []): string {
  const dir = JSON.stringify(outDir);
  switch (format) {
    case 'hf':
      return `from transformers import AutoModelForCausalLM, AutoTokenizer\nmodel = AutoModelForCausalLM.from_pretrained(${dir})\ntokenizer = AutoTokenizer.from_pretrained(${dir})`;
    case 'onnx':
      // Optimum's layout (onnx/model.onnx beside the HF config and tokenizer), so transformers.js loads the folder as is.
      return `import { AutoModelForCausalLM, AutoTokenizer, env } from '@huggingface/transformers';\nenv.localModelPath = ${JSON.stringify(path.dirname(outDir))}; env.allowRemoteModels = false;\nconst model = await AutoModelForCausalLM.from_pretrained(${JSON.stringify(path.basename(outDir))});\nconst tokenizer = await AutoTokenizer.from_pretrained(${JSON.stringify(path.basename(outDir))});`;
    case 'lora': {
      // The base the export names: its own base/ folder, else the one adapter_config.json names.
      const base = files.some((f) => f.name === 'base/config.json') ? path.join(outDir, 'base') : adapterBase(outDir);
      const b = base === null ? 'BASE_MODEL' : JSON.stringify(base);
      return [
        'from peft import PeftModel',
        'from transformers import AutoModelForCausalLM, AutoTokenizer',
        `base = AutoModelForCausalLM.from_pretrained(${b})   # the model the run trained on (README.md: Base model)`,
        `tokenizer = AutoTokenizer.from_pretrained(${b})`,
        `model = PeftModel.from_pretrained(base, ${dir})`,
      ].join('\n');
    }
    case 'gguf': {
      const gguf = files.find((f) => f.name.endsWith('.gguf'))?.name ?? 'model-f16.gguf';
      return `llama-cli -m ${JSON.stringify(path.join(outDir, gguf))} -p "hello"   # or: ollama create my-agent -f Modelfile (FROM ./${gguf})`;
    }
    case 'verl':
      // The folder's README.md has the whole recipe (requirements, overrides); this is its launch line.
      return `cd ${dir}\nPYTHONPATH="$PWD:$PYTHONPATH" python3 -m verl.trainer.main_ppo --config-path="$PWD" --config-name=envace_grpo   # README.md: what maps, what does not`;
  }
}

/** The base an exported adapter_config.json names, or null when it cannot be read (the folder moved or was removed). */
function adapterBase(outDir: string): string | null {
  try {
    const named = (JSON.parse(readFileSync(path.join(outDir, 'adapter_config.json'), 'utf8')) as { base_model_name_or_path?: unknown }).base_model_name_or_path;
    return typeof named === 'string' && named !== '' ? named : null;
  } catch {
    return null;
  }
}

/** The base a run's adapters apply to (the imported model it trained on, grown by our role markers) and where the export puts it. */
function loraBaseOf(m: ModelsModule, s: EngineServices, run: Run, model: Pick<ExportOptions, 'config' | 'tokenizer'>, choice: LoraBaseChoice): LoraBaseOptions {
  const imported = 'imported' in run.config.model ? run.config.model.imported : null;
  if (!imported) throw new ContractError('invalid_input', `run ${run.id} trained a ${JSON.stringify(run.config.model)} model from scratch, which has no base for a LoRA adapter`);
  const entry = m.listModels(s.paths.models).find((e) => e.name === imported);
  try {
    return m.loraBasePlan(
      { runId: run.id, imported, entry: entry ? { path: entry.path, source: entry.source, vocabSize: entry.config.vocabSize } : null, config: model.config, tokenizer: model.tokenizer },
      choice,
    );
  } catch (error) {
    if (error instanceof m.LoraBaseError) throw new ContractError('invalid_input', error.message);
    throw error;
  }
}

/** What a verl export carries besides the weights: the run's knobs, its env's tools and tasks as `envace mcp serve` lists them. */
async function verlRunOf(s: EngineServices, run: { id: string; name: string; env: string; algo: VerlRun['run']['algo']; config: VerlRun['run']['config'] }, step: number): Promise<VerlRun> {
  const env = await s.envs.get(run.env);
  if (!env) throw new ContractError('not_found', `run ${run.id} trained on environment ${run.env}, which is not registered here`);
  // The run's own world: a retail run's size and seed decide which tasks exist.
  const options = envOptions(run.config);
  const [train, heldout] = await Promise.all([s.envs.tasks(run.env, 'train', options), s.envs.tasks(run.env, 'heldout', options)]);
  return {
    run: { id: run.id, name: run.name, algo: run.algo, step, config: run.config },
    env: { id: env.id, description: env.description, tools: env.tools },
    tasks: { train: train ?? [], heldout: heldout ?? [] },
    home: s.paths.home,
    envOptions: options,
  };
}

/** Paths from a GUI transport must stay inside `root` (symlinks followed); the CLI (in-process) may go anywhere. */
function confine(ctx: RequestContext, target: string, root: string, what: string): string {
  try {
    return confineUserPath(target, { what, roots: rootsForTransport(ctx.transport, root) });
  } catch (error) {
    if (error instanceof UserPathError) throw new ContractError('invalid_input', error.message);
    throw error;
  }
}

/** A file-system failure while writing (a read-only or virtual folder such as /proc) said in words, not as a raw errno. */
function cannotWrite(target: string, error: unknown): unknown {
  const code = (error as { code?: unknown; cause?: { code?: unknown } } | null)?.code ?? (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return error;
  return new ContractError('invalid_input', `cannot write the export to ${target} (${code}: ${(error as Error).message.split('\n')[0]}); choose a folder you can write to`);
}

function asContractError(m: ModelsModule, error: unknown): never {
  if (error instanceof ContractError) throw error;
  if (error instanceof m.ModelRegistryError)
    throw new ContractError(error.code === 'NOT_FOUND' ? 'not_found' : error.code === 'EXISTS' ? 'conflict' : 'invalid_input', error.message);
  if (error instanceof m.ExportError) throw new ContractError(error.code.startsWith('OUT_DIR') ? 'conflict' : 'invalid_input', error.message);
  if (error instanceof m.RunCheckpointError) throw new ContractError('invalid_input', error.message);
  throw error;
}

/**
 * The Hub client's errors as contract errors: what the network or the Hub refused (unreachable, offline
 * and not cached, HF_TOKEN missing or refused, bad bytes) is not available here now; what the request
 * named wrong (the id, an architecture or size the import cannot take) is invalid input.
 */
function hubContractError(h: HubModule, m: ModelsModule, error: unknown): never {
  if (error instanceof h.HubError) {
    switch (error.code) {
      case 'NOT_FOUND':
        throw new ContractError('not_found', error.message);
      case 'UNREACHABLE':
      case 'NOT_CACHED':
      case 'AUTH':
      case 'FORBIDDEN':
      case 'CHECKSUM':
      case 'BAD_RESPONSE':
        throw new ContractError('not_available', error.message);
      default:
        throw new ContractError('invalid_input', error.message);
    }
  }
  return asContractError(m, error);
}

/** Progress events of one pull: every phase change and file change, else at most five a second. */
function pullProgress(s: EngineServices, pullId: string, repo: string) {
  const eta = new EtaEstimator();
  let last = { phase: '', file: '', at: 0 };
  return (p: { phase: 'resolving' | 'downloading' | 'importing' | 'done'; file: string; doneBytes: number; totalBytes: number }) => {
    const now = Date.now();
    const fraction = p.totalBytes > 0 ? Math.min(1, p.doneBytes / p.totalBytes) : null;
    const etaMs = fraction === null ? null : eta.update(fraction, now);
    if (p.phase === last.phase && p.file === last.file && now - last.at < 200 && fraction !== 1) return;
    last = { phase: p.phase, file: p.file, at: now };
    s.events.emit('models.pull.progress', { pullId, repo, phase: p.phase, file: p.file || null, doneBytes: p.doneBytes, totalBytes: p.totalBytes, fraction, etaMs: p.phase === 'done' ? 0 : etaMs });
  };
}

export const modelsHandlers: HandlerGroup<'models.list' | 'models.import' | 'models.search' | 'models.pull' | 'exports.list' | 'exports.create'> = (s) => ({
  'models.list': async () => ({ items: (await models()).listModels(s.paths.models).map(summary) }),
  'models.import': async ({ hfDir, ggufFile, name }, ctx) => {
    const m = await models();
    const imported =
      ggufFile !== undefined
        ? m.importGgufModel({ ggufFile: confine(ctx, ggufFile, s.paths.home, 'the GGUF file'), name, modelsDir: s.paths.models })
        : m.importModel({ hfDir: confine(ctx, hfDir!, s.paths.home, 'the model folder'), name, modelsDir: s.paths.models });
    return summary(await imported.catch((e) => asContractError(m, e)));
  },
  'models.search': async ({ query, limit }) => {
    const [h, m] = await Promise.all([hub(), models()]);
    const conn = { endpoint: await Promise.resolve().then(() => h.hubEndpoint()).catch((e) => hubContractError(h, m, e)), token: process.env.HF_TOKEN || undefined };
    const items = await h.searchModels(conn, query, limit).catch((e) => hubContractError(h, m, e instanceof h.NetworkFailure ? h.unreachableError(conn, e) : e));
    return { endpoint: conn.endpoint, items };
  },
  'models.pull': async ({ repo, name, offline, pullId }) => {
    const [h, m] = await Promise.all([hub(), models()]);
    const id = pullId ?? randomUUID();
    const report = pullProgress(s, id, repo);
    const { pull, entry } = await h
      .pullAndImport({ ref: repo, name, offline: offline || undefined, cacheDir: hubCacheDir(s.paths.home), modelsDir: s.paths.models, onProgress: report })
      .catch((e) => hubContractError(h, m, e));
    const totalBytes = pull.files.reduce((n, f) => n + f.size, 0);
    report({ phase: 'done', file: '', doneBytes: totalBytes, totalBytes });
    return {
      model: summary(entry),
      pullId: id,
      repo: pull.repo,
      revision: pull.revision,
      commit: pull.commit,
      fromCache: pull.fromCache,
      downloadedBytes: pull.downloadedBytes,
      totalBytes,
      files: pull.files.map((f) => f.path),
      note: pull.note,
    };
  },
  'exports.list': () => ({ items: s.store.exports.list() }),
  'exports.create': async ({ source, format, outDir, ggufDtype, force, loraBase }, ctx) => {
    if (loraBase !== 'auto' && format !== 'lora') throw new ContractError('invalid_input', `loraBase (${loraBase}) is for a LoRA export; this one is ${format}`);
    if (format === 'lora' && 'model' in source) throw new ContractError('invalid_input', `${LORA_FROM_MODEL}; a LoRA adapter comes from a run trained with lora.rank > 0`);
    const m = await models();
    let model: Pick<ExportOptions, 'config' | 'weights' | 'tokenizer'>;
    let label: string;
    let card: ModelCard | undefined;
    let step: number | null = null;
    let verl: VerlRun | undefined;
    let lora: LoraBaseOptions | undefined;
    if ('run' in source) {
      const run = s.store.runs.get(source.run);
      if (!run) throw new ContractError('not_found', `no run with id ${source.run}`);
      const noAdapter = format === 'lora' ? loraExportProblem(run.config) : null;
      if (noAdapter) throw new ContractError('invalid_input', `run ${run.id}: ${noAdapter}`);
      const chosen = source.step ?? run.checkpoints.at(-1)?.step;
      if (chosen === undefined) throw new ContractError('not_found', `run ${run.id} has no checkpoint yet`);
      if (!run.checkpoints.some((c) => c.step === chosen)) {
        throw new ContractError(
          'not_found',
          `run ${run.id} has no checkpoint at step ${chosen} (checkpoints: ${run.checkpoints.map((c) => c.step).join(', ')})`,
        );
      }
      step = chosen;
      try {
        model = m.loadRunCheckpoint(s.store.runs.checkpointPath(run.id, chosen) ?? checkpointDir(s, run.id, chosen));
      } catch (error) {
        asContractError(m, error);
      }
      label = `${run.id}-step-${chosen}`;
      if (format === 'verl') verl = await verlRunOf(s, run, chosen);
      if (format === 'lora') {
        if (!model.config.lora) throw new ContractError('invalid_input', `run ${run.id}: its checkpoint at step ${chosen} holds no LoRA adapter (every weight trained); export it as a Hugging Face folder, ONNX or GGUF`);
        lora = loraBaseOf(m, s, run, model, loraBase);
      }
      const last = Object.fromEntries(
        s.store.metrics.query({ runId: run.id, toStep: chosen, maxPoints: 100_000 }).map((m) => [m.key, m.values.at(-1) ?? NaN]),
      );
      card = {
        run: `${run.name} (${run.id}), step ${chosen}`,
        method: run.algo,
        metrics: Object.fromEntries(Object.entries(last).filter(([k]) => /reward|success|eval/.test(k))),
        // The held-out figures of these weights: stored evaluations of this step, else training's eval/success.
        heldOut: (await import('../models/model-card')).heldOutFacts(
          chosen,
          s.store.evaluations.list(run.id),
          s.store.metrics.query({ runId: run.id, keys: ['eval/success'], toStep: chosen, maxPoints: 100_000 })[0],
          `envace eval --run ${run.id} --step ${chosen}`,
        ),
      };
    } else {
      model = await Promise.resolve()
        .then(() => m.loadModel(s.paths.models, source.model))
        .catch((e) => asContractError(m, e));
      label = source.model;
    }
    const defaultDir = path.join(s.paths.exports, `${label}-${format}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    const target = outDir ? confine(ctx, outDir, s.paths.exports, 'the export folder') : defaultDir;
    const result = await m
      .exportModel({
        ...model,
        format,
        outDir: target,
        card,
        name: label,
        ggufDtype,
        verl,
        lora,
        force,
        protectedPaths: [s.paths.runs, s.paths.models, s.paths.db, s.paths.logs],
      })
      .catch((e) => asContractError(m, cannotWrite(target, e)));
    const record = s.store.exports.insert({
      runId: 'run' in source ? source.run : null,
      model: 'model' in source ? source.model : null,
      step,
      format,
      outDir: result.outDir,
      files: result.files,
    });
    return lora?.notes ? { ...record, notes: [...lora.notes] } : record;
  },
});
