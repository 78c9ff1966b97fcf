import type { Command } from 'commander';
import fs from 'node:fs';
import { parseBoundedJson } from '../../../native-models/io';
import { RunConfig, type Run, type RunConfigInput, type WorkbenchApi } from '../../contract';
import { withEngine } from '../engine-session';
import { CliError, EXIT } from '../output';
import { createProgress } from '../progress';
import { forceQuitHint, onFirstStopSignal } from '../signals';
import { act, leaf, type CommonOptions } from './common';

interface TrainOptions extends CommonOptions {
  /** Required unless --config names the env. */
  env?: string;
  algo?: string;
  preset?: string;
  model?: string;
  config?: string;
  steps?: string;
  seed?: string;
  set?: string[];
  initFrom?: string;
  /** The env × model's quick recipe (the Quickstart's) instead of the recommended one. */
  quick?: boolean;
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** `--set rollout.k=8`: one knob, type taken from the JSON value (numbers, booleans, strings). */
export function applySetting(target: Record<string, unknown>, assignment: string): void {
  const eq = assignment.indexOf('=');
  if (eq < 1) throw new CliError(`--set wants key=value, got "${assignment}"`, EXIT.usage);
  const keys = assignment.slice(0, eq).split('.');
  // Assigning through these would write to Object.prototype (or a constructor) for the whole process.
  const unsafe = keys.find((key) => UNSAFE_KEYS.has(key));
  if (unsafe !== undefined) throw new CliError(`--set cannot name "${unsafe}" (in "${assignment.slice(0, eq)}"): it is not a setting`, EXIT.usage);
  if (keys.some((key) => key === '')) throw new CliError(`--set wants a dotted key like rollout.k, got "${assignment.slice(0, eq)}"`, EXIT.usage);
  const raw = assignment.slice(eq + 1);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (!Object.hasOwn(node, key) || typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]] = value;
}

/**
 * The run config from the flags, over `--config FILE` or over the recipe (`recipe`: fetched from the
 * engine by the caller — the recommended recipe, or with --algo that method's stage recipe).
 */
export function configFromFlags(opts: TrainOptions, recipe?: Record<string, unknown>): RunConfigInput {
  let base: Record<string, unknown> = recipe ? structuredClone(recipe) : {};
  if (opts.config) {
    try {
      base = parseBoundedJson(fs.readFileSync(opts.config, 'utf8'), {}, 'the file') as Record<string, unknown>;
    } catch (error) {
      throw new CliError(`cannot read --config ${opts.config}: ${(error as Error).message}`, EXIT.usage);
    }
    // Spreading a string or an array would turn its characters or items into unknown keys.
    if (typeof base !== 'object' || base === null || Array.isArray(base)) throw new CliError(`--config ${opts.config} must hold a JSON object (a run config)`, EXIT.usage);
  }
  // A stored run config (e.g. copied from another run) names its env; --env, when given, overrides it.
  const env = opts.env ?? base.env;
  if (env === undefined) throw new CliError('--env is required (or a --config whose run config names env)', EXIT.usage);
  const config: Record<string, unknown> = { ...base, env, ...(opts.algo !== undefined ? { algo: opts.algo } : {}) };
  if (opts.preset && opts.model) throw new CliError('give --preset or --model, not both', EXIT.usage);
  if (opts.preset) config.model = { preset: opts.preset };
  if (opts.model) config.model = { imported: opts.model };
  if (opts.initFrom !== undefined) {
    const m = /^([^@\s]+)(?:@(\d+))?$/.exec(opts.initFrom);
    if (!m) throw new CliError(`--init-from wants RUN or RUN@STEP, got "${opts.initFrom}"`, EXIT.usage);
    config.initFrom = m[2] === undefined ? { runId: m[1] } : { runId: m[1], step: Number(m[2]) };
  }
  if (opts.steps !== undefined) config.steps = Number(opts.steps);
  if (opts.seed !== undefined) config.seed = Number(opts.seed);
  for (const assignment of opts.set ?? []) applySetting(config, assignment);
  // Strict: unknown keys and bad values are refused here with the path that is wrong.
  const parsed = RunConfig.safeParse(config);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`).join('; ');
    throw new CliError(`invalid run config: ${issues}`, EXIT.usage);
  }
  return config as RunConfigInput;
}

/** The flags as a config of their own, to check them before any recipe: without --algo or --config, the recipe's method. */
const flagsAlone = (opts: TrainOptions): TrainOptions => (opts.config === undefined && opts.algo === undefined ? { ...opts, algo: 'sft+envace' } : opts);

/**
 * The run config `envace train` creates. Without --config it starts from the recipe: the whole
 * recommended recipe, or with --algo that method's (sft: the recipe's SFT stage; an RL method: the RL
 * recipe it trains from a checkpoint with, engine/runs/rl-recipes.ts); flags adjust either. With
 * --init-from and no --preset/--model the checkpoint decides the model, and so the recipe.
 */
export async function resolveTrainConfig(api: WorkbenchApi, opts: TrainOptions, say: (line: string) => void): Promise<RunConfigInput> {
  const useRecipe = opts.config === undefined;
  if (opts.quick && !useRecipe) throw new CliError('--quick picks the quick recipe; with --config the run starts from that file instead: give one of them', EXIT.usage);
  let config = configFromFlags(flagsAlone(opts));
  const initModel = config.initFrom && !opts.preset && !opts.model ? (await api.call('runs.get', { id: config.initFrom.runId })).config.model : undefined;
  if (useRecipe) {
    const model = initModel ?? (opts.preset ? { preset: opts.preset as 'nano' } : opts.model ? { imported: opts.model } : undefined);
    const recipe = await api.call('runs.recipe', { env: config.env, ...(model ? { model } : {}), ...(opts.algo !== undefined ? { algo: config.algo } : {}), ...(opts.quick ? { variant: 'quick' as const } : {}) });
    say(`recipe ${recipe.id}: ${recipe.notes}`);
    const { minutes, heldoutSuccess, measured } = recipe.expected;
    if (minutes !== null && heldoutSuccess !== null) say(`expected: about ${minutes} min, held-out success ${Math.round(heldoutSuccess * 100)} % (measured ${measured})`);
    config = configFromFlags(opts, recipe.config as unknown as Record<string, unknown>);
    // An RL recipe is sized for a policy that already acts: from random weights it learns next to nothing.
    if (opts.algo !== undefined && !['sft', 'sft+envace'].includes(config.algo ?? '') && !config.initFrom)
      say(`note: the ${config.algo} recipe trains from a checkpoint; without --init-from RUN it starts from random weights`);
  }
  if (initModel) config.model = initModel;
  return config;
}

/**
 * Follow a run to its end, drawing progress. Ctrl+C or SIGTERM cancels it at the next step boundary
 * (the run is kept as cancelled, its last checkpoint resumable: `envace runs resume`); a second one
 * force quits.
 */
export async function followRun(api: WorkbenchApi, runId: string, json: boolean): Promise<string> {
  const progress = createProgress(json);
  const done = new Promise<string>((resolve) => {
    api.on('run.status', (s) => {
      if (s.runId === runId && ['completed', 'failed', 'cancelled'].includes(s.status)) resolve(s.status);
    });
  });
  api.on('run.progress', (p) => p.runId === runId && progress.update(p.fraction, `${p.phase} · step ${p.step}/${p.totalSteps}`, p.etaMs));
  api.on('run.log', (l) => l.runId === runId && progress.log(`${l.level}: ${l.message}`));
  const offSignals = onFirstStopSignal((signal) => {
    progress.log(`${signal}: cancelling at the next step boundary ${forceQuitHint(signal)}…`);
    void api.call('runs.cancel', { id: runId }).catch(() => {});
  });
  try {
    return await done;
  } finally {
    offSignals();
    progress.stop();
  }
}

/** A run that did not complete, as the command's error (exit 1); a cancelled one says how to go on with it. */
export function unfinishedRun(run: Pick<Run, 'id' | 'status' | 'error' | 'currentStep' | 'totalSteps'>): CliError {
  if (run.status === 'cancelled') return new CliError(`run cancelled at step ${run.currentStep} of ${run.totalSteps}; go on with: npx envace runs resume ${run.id}`, EXIT.error);
  return new CliError(`run ${run.status}${run.error ? `: ${run.error}` : ''}`, EXIT.error);
}

export function registerTrain(program: Command): void {
  leaf(program.command('train').description('train a policy (sft, grpo-real, envace and ablations, paw, rwml, chains) and follow it to the end'))
    .option('--env <env>', 'environment id (envace envs; required unless --config names one)')
    .option('--algo <algo>', `method: ${RunConfig.shape.algo.unwrap().options.join(', ')} (without it: the recommended recipe for the env and model; with it: that method's — sft the recipe's SFT stage, an RL method the RL recipe; flags adjust either)`)
    .option('--preset <name>', 'model preset: nano, tiny, small (default tiny)')
    .option('--model <name>', 'an imported model')
    .option('--config <file>', 'run config JSON (flags override it)')
    .option('--steps <n>', 'training steps')
    .option('--seed <s>', 'seed')
    .option('--set <key=value...>', 'override any knob, e.g. --set rollout.k=8 loss.stdNormalize=true')
    .option('--init-from <run[@step]>', "start from another run's checkpoint (its latest without @step) with this run's own config")
    .option('--quick', "the env × model's quick recipe where it has one (the Quickstart's: learning shown in minutes), else the recommended one")
    .action(
      act<TrainOptions>(async (_args, opts, out) => {
        // Flags are checked before the engine opens the home; the recipe comes from it.
        configFromFlags(flagsAlone(opts));
        await withEngine(opts.home, async (api) => {
          const config = await resolveTrainConfig(api, opts, (line) => out.line(line));
          const run = await api.call('runs.create', { config: config as never, start: true });
          out.line(`run ${run.id}: ${run.name}, ${run.totalSteps} steps`);
          const status = await followRun(api, run.id, out.json);
          const final = await api.call('runs.get', { id: run.id });
          const keys = (await api.call('metrics.keys', { id: run.id })).keys;
          const series = keys.length ? (await api.call('metrics.query', { runId: run.id, keys, maxPoints: 100_000 })).series : [];
          const last = Object.fromEntries(series.filter((s) => s.values.length).map((s) => [s.key, s.values[s.values.length - 1]]));
          out.result({ run: run.id, status, step: final.currentStep, totalSteps: final.totalSteps, error: final.error, checkpoints: final.checkpoints.map((c) => c.step), metrics: last }, () =>
            [
              `${status}: ${final.currentStep}/${final.totalSteps} steps${final.error ? ` — ${final.error}` : ''}`,
              ...Object.entries(last)
                .filter(([k]) => /reward|success|loss$|eval/.test(k))
                .map(([k, v]) => `  ${k.padEnd(28)} ${Number(v.toFixed(4))}`),
              `inspect it: npx envace runs show ${run.id}`,
            ].join('\n'),
          );
          if (status !== 'completed') throw unfinishedRun(final);
        });
      }),
    );
}
