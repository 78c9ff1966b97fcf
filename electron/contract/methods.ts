import { z } from 'zod';
import { Empty, Ok } from './common';
import { EnvDetail, EnvsIdsOutput, EnvsAddMcpInput, EnvsCallInput, EnvsCallOutput, EnvsGetInput, EnvsListOutput, EnvsRemoveInput, EnvsTasksInput, EnvsTasksOutput, EnvsTestInput, EnvsTestOutput, EnvSummary } from './envs';
import { JobIdInput, JobsListOutput } from './jobs';
import { Memory, MemoriesCommitInput, MemoriesCommitOutput, MemoriesFitInput, MemoriesFitOutput, MemoriesListInput, MemoriesListOutput, MemoriesRehearseInput, MemoriesRehearseOutput, MemoryGetInput, MemoryUpdateInput } from './memories';
import { EvalsListInput, EvalsListOutput, EvalsModelInput, EvalsRunInput, ModelEvalResult, StoredEvalResult } from './evals';
import { ExportRecord, ExportsCreateInput, ExportsListOutput, ModelsImportInput, ModelsListOutput, ModelsPullInput, ModelsPullOutput, ModelsSearchInput, ModelsSearchOutput, ModelSummary } from './models';
import { MetricsKeysOutput, MetricsQueryInput, MetricsQueryOutput } from './metrics';
import { Run, RunIdInput, RunsCreateInput, RunsForkInput, RunsListInput, RunsListOutput, RunsLogInput, RunsLogOutput, RunsPreflightInput, RunsPreflightOutput, RunsRecipeInput, RunsRecipeOutput } from './runs';
import { Settings, SettingsSetInput } from './settings';
import { GpuSetupInput, GpuSetupOutput, SystemInfo } from './system';
import { RealityCheckInput, RealityCheckOutput, Rollout, TrajectoriesListInput, TrajectoriesListOutput, TrajectoryGetInput } from './trajectories';

/**
 * `writes`: the method changes the data home (store, files, jobs). An engine that opened a home
 * read-only, because another engine owns it, answers these with `conflict`.
 */
export type MethodEffect = 'reads' | 'writes';

const method = <I extends z.ZodType, O extends z.ZodType>(input: I, output: O, doc: string, effect: MethodEffect = 'reads') => ({ input, output, doc, effect });

/**
 * The one list of methods. Transports, the preload bridge, the WebSocket server, the
 * renderer client and the CLI are all derived from this table: adding a method is one
 * entry here plus one handler in electron/engine/handlers.
 */
export const methods = {
  'system.info': method(Empty, SystemInfo, 'Versions, execution providers that load here, data home, CPUs'),
  'system.gpuSetup': method(GpuSetupInput, GpuSetupOutput, "NVIDIA GPU on Linux x64: run onnxruntime-node's installer for its CUDA provider, then probe providers (not_available without a GPU)", 'writes'),
  'settings.get': method(Empty, Settings, 'The data home (path, size, free disk, who owns it) and the defaults forms start from'),
  'settings.set': method(SettingsSetInput, Settings, "Store the defaults forms start from, in the data home's settings file", 'writes'),
  'runs.list': method(RunsListInput, RunsListOutput, 'Runs, newest first, with status and progress'),
  'runs.get': method(RunIdInput, Run, 'One run with its resolved config and checkpoints'),
  'runs.create': method(RunsCreateInput, Run, 'Store a validated run config; with start, queue its training job', 'writes'),
  'runs.recipe': method(RunsRecipeInput, RunsRecipeOutput, 'The recommended recipe (knobs known to train) for an environment and model, or for one method of it (its SFT stage, RL from a checkpoint)'),
  'runs.preflight': method(RunsPreflightInput, RunsPreflightOutput, 'Before starting: config valid, environment reachable, memory estimate, tokenizer coverage'),
  'runs.start': method(RunIdInput, Run, 'Queue the training job of a created run', 'writes'),
  'runs.cancel': method(RunIdInput, Ok, 'Cancel a queued or running run (its last checkpoint stays resumable)', 'writes'),
  'runs.resume': method(RunIdInput, Run, 'Resume an interrupted, failed or cancelled run from its last checkpoint', 'writes'),
  'runs.fork': method(RunsForkInput, Run, 'A new run that starts from a checkpoint of another', 'writes'),
  'runs.log': method(RunsLogInput, RunsLogOutput, "A run's stored log lines (the last 2,000), oldest first"),
  'runs.delete': method(RunIdInput, Ok, 'Delete a run that is not running, with its metrics, rollouts and files', 'writes'),
  'metrics.keys': method(RunIdInput, MetricsKeysOutput, 'The metric keys a run has written'),
  'metrics.query': method(MetricsQueryInput, MetricsQueryOutput, 'Metric series for curves, down-sampled by the engine'),
  'trajectories.list': method(TrajectoriesListInput, TrajectoriesListOutput, 'Rollouts filtered by run, step, task, mode, reward'),
  'trajectories.get': method(TrajectoryGetInput, Rollout, 'One rollout with every turn'),
  'trajectories.realityCheck': method(RealityCheckInput, RealityCheckOutput, "Replay a rehearsed rollout's actions in the real env; store real beside imagined", 'writes'),
  'memories.list': method(MemoriesListInput, MemoriesListOutput, 'Rehearsal memories, newest first'),
  'memories.get': method(MemoryGetInput, Memory, 'One rehearsal memory'),
  'memories.update': method(MemoryUpdateInput, Memory, 'Edit a memory: stores a new version whose parent is the edited one', 'writes'),
  'memories.rehearse': method(MemoriesRehearseInput, MemoriesRehearseOutput, 'Private rehearsals of a task with a trained run (no env calls) and their memory', 'writes'),
  'memories.fit': method(MemoriesFitInput, MemoriesFitOutput, "Before a commit: the memory's tokens against the room the prompt leaves, and the commit mode chosen to fit"),
  'memories.commit': method(MemoriesCommitInput, MemoriesCommitOutput, 'One committed real run with a memory (prompt or plan mode; absent: chosen to fit)', 'writes'),
  'evals.run': method(EvalsRunInput, StoredEvalResult, 'Evaluate a run in the real env, with or without test-time rehearsal', 'writes'),
  'evals.list': method(EvalsListInput, EvalsListOutput, 'Evaluations so far, newest first'),
  'evals.model': method(EvalsModelInput, ModelEvalResult, 'Evaluate an imported model as imported, no run: its base held-out figures under the env × model recipe', 'writes'),
  'envs.ids': method(Empty, EnvsIdsOutput, 'Registered environment ids, at once (without building them)'),
  'envs.list': method(Empty, EnvsListOutput, 'Environments with their track, tools and task counts'),
  'envs.get': method(EnvsGetInput, EnvDetail, 'One environment with its tool schemas'),
  'envs.tasks': method(EnvsTasksInput, EnvsTasksOutput, "An environment's tasks per split (ids and instructions)"),
  'envs.addMcp': method(EnvsAddMcpInput, EnvSummary, 'Add an MCP server and a task file as an environment (kept across restarts)', 'writes'),
  'envs.remove': method(EnvsRemoveInput, Ok, "Remove a user's MCP environment (its copied task and seed files go with it)", 'writes'),
  'envs.test': method(EnvsTestInput, EnvsTestOutput, 'Check an environment end to end: connect, list tools, check tasks, replay every gold trajectory (or `limit` per split, spread over it)'),
  'envs.call': method(EnvsCallInput, EnvsCallOutput, 'Call one tool by hand in a fresh episode'),
  'models.list': method(Empty, ModelsListOutput, 'Imported Hugging Face models runs can pick'),
  'models.import': method(ModelsImportInput, ModelSummary, 'Import a Llama/Qwen2/Qwen3-style Hugging Face folder or GGUF file', 'writes'),
  'models.search': method(ModelsSearchInput, ModelsSearchOutput, 'Search the Hugging Face Hub (HF_ENDPOINT) for text-generation models with safetensors weights'),
  'models.pull': method(ModelsPullInput, ModelsPullOutput, 'Pull OWNER/NAME[@REVISION] from the Hub into the cache (resumable, sha256-checked; offline: the cache) and import it', 'writes'),
  'exports.list': method(Empty, ExportsListOutput, 'Exports written so far, newest first'),
  'exports.create': method(ExportsCreateInput, ExportRecord, "Export a run's checkpoint or an imported model as HF, ONNX, LoRA or GGUF", 'writes'),
  'jobs.list': method(Empty, JobsListOutput, 'Queued, running and recent jobs'),
  'jobs.cancel': method(JobIdInput, Ok, 'Cancel a queued or running job', 'writes'),
} as const;

export type MethodTable = typeof methods;
export type MethodName = keyof MethodTable;
export type MethodInput<M extends MethodName> = z.input<MethodTable[M]['input']>;
export type MethodOutput<M extends MethodName> = z.output<MethodTable[M]['output']>;
/** What a handler receives: the parsed input with defaults applied. */
export type HandlerInput<M extends MethodName> = z.output<MethodTable[M]['input']>;
export const methodNames = Object.keys(methods) as MethodName[];
