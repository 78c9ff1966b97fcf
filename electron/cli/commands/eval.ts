import type { Command } from 'commander';
import { getEnv } from '../../engine/envs/registry';
import { runOracle } from '../../engine/envs/oracle';
import { SPLITS, type Split } from '../../engine/envs/types';
import { withEngine, withUserEnvs } from '../engine-session';
import { CommitMode, type RobustnessTable } from '../../contract';
import { CliError, EXIT, table, type Output } from '../output';
import { act, leaf, type CommonOptions } from './common';

interface EvalOptions extends CommonOptions {
  run?: string;
  model?: string;
  checkpoint?: string;
  policy?: string;
  env?: string;
  split: string;
  limit?: string;
  rehearsals?: string;
  mode?: string;
  step?: string;
  commit?: string;
  memories?: string;
  robustness?: boolean | string;
}

/** `--robustness` alone: the default sizes; `--robustness 1,4`: those. */
export function robustnessSizes(flag: boolean | string | undefined): true | number[] | undefined {
  if (flag === undefined || flag === false) return undefined;
  if (flag === true) return true;
  const sizes = flag.split(',').map((x) => Number(x.trim()));
  if (!sizes.length || sizes.length > 8 || sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 512))
    throw new CliError('--robustness takes up to 8 comma-separated token counts, each 1–512 (e.g. 1,4,16,64)', EXIT.usage);
  return sizes;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The robustness table and its verdict (issue 21's bar: no perturbation costs more than the tolerance). */
export function robustnessText(r: RobustnessTable): string {
  const points = (x: number) => `${x > 0 ? '+' : ''}${(x * 100).toFixed(1)}`;
  const rows = r.cells.map((c) => [
    c.perturbation,
    c.where ?? '-',
    c.perturbation === 'memory' ? c.tokens.toFixed(0) : String(c.tokens),
    pct(c.success),
    c.perturbation === 'none' ? '-' : points(c.delta),
    c.envCallsPerTask.toFixed(2),
    pct(c.invalidActionRate),
  ]);
  const verdict = r.passed
    ? `robustness: PASS (every perturbation within ${(r.tolerance * 100).toFixed(0)} points of the unperturbed success; worst drop ${(r.worstDrop * 100).toFixed(1)})`
    : `robustness: FAIL (worst drop ${(r.worstDrop * 100).toFixed(1)} points, more than ${(r.tolerance * 100).toFixed(0)})`;
  return `${table([['PERTURBATION', 'WHERE', 'TOKENS', 'SUCCESS', 'Δ POINTS', 'ENV CALLS/TASK', 'INVALID'], ...rows])}\n${verdict}`;
}

/** A trained run's checkpoint in the real environment, optionally with test-time rehearsal. */
async function evaluateRun(opts: EvalOptions, out: Output): Promise<void> {
  if (opts.checkpoint) throw new CliError('--checkpoint is not supported; use --run ID [--step N]', EXIT.usage);
  const rehearsals = opts.rehearsals === undefined ? 0 : Number(opts.rehearsals);
  if (!Number.isInteger(rehearsals) || rehearsals < 0 || rehearsals > 16) throw new CliError('--rehearsals must be 0–16', EXIT.usage);
  if (opts.mode !== undefined && opts.mode !== 'parallel' && opts.mode !== 'sequential')
    throw new CliError('--mode must be parallel or sequential', EXIT.usage);
  if (opts.commit !== undefined && !CommitMode.options.includes(opts.commit as CommitMode))
    throw new CliError(`--commit must be ${CommitMode.options.join(', ')}`, EXIT.usage);
  if (opts.memories !== undefined && opts.memories !== 'rehearse' && opts.memories !== 'stored')
    throw new CliError('--memories must be rehearse or stored', EXIT.usage);
  const step = opts.step === undefined ? undefined : Number(opts.step);
  if (step !== undefined && !(Number.isInteger(step) && step >= 0))
    throw new CliError('--step must be a checkpoint step (a whole number)', EXIT.usage);
  const limit = opts.limit === undefined ? undefined : Number(opts.limit);
  const robustness = robustnessSizes(opts.robustness);
  const result = await withEngine(opts.home, async (api) => {
    const run = await api.call('runs.get', { id: opts.run! });
    if (opts.env !== undefined && run.env !== opts.env) throw new CliError(`run ${run.id} trained on ${run.env}, not ${opts.env}`, EXIT.usage);
    out.line(`evaluating ${run.id} on ${opts.split}${rehearsals ? ` with ${rehearsals} ${opts.mode ?? 'parallel'} rehearsals per task` : ''}…`);
    return api.call('evals.run', {
      runId: run.id,
      step,
      split: opts.split as Split,
      limit,
      rehearsals,
      mode: (opts.mode as 'parallel' | 'sequential' | undefined) ?? 'parallel',
      commit: (opts.commit as CommitMode | undefined) ?? 'safe',
      memories: (opts.memories as 'rehearse' | 'stored' | undefined) ?? 'rehearse',
      robustness,
    });
  });
  const robustnessPart = result.robustness ? `\n${robustnessText(result.robustness)}` : '';
  out.result(
    result,
    () =>
      table([
        ['RUN', 'STEP', 'SPLIT', 'REHEARSALS', 'TASKS', 'SUCCESS', 'SCORE', 'INVALID', 'ENV CALLS/TASK', 'CALL ERRORS', 'TOKENS/TASK', 'FIDELITY', 'WALL'],
        [
          result.runId,
          String(result.step),
          result.split,
          result.rehearsals ? `${result.rehearsals} ${result.mode} ${result.commit}` : '-',
          String(result.tasks),
          `${(result.success * 100).toFixed(1)}%`,
          result.meanScore.toFixed(3),
          `${(result.invalidActionRate * 100).toFixed(1)}%`,
          result.envCallsPerTask.toFixed(2),
          result.callErrorRate === undefined ? '-' : pct(result.callErrorRate),
          result.tokensPerTask.toFixed(0),
          result.fidelity === null ? '-' : result.fidelity.toFixed(3),
          `${(result.wallMs / 1000).toFixed(1)} s`,
        ],
      ]) +
      envFailureText(result.perTask) +
      robustnessPart,
  );
}

/** The tasks the environment failed (a tool server that did not start, crashed or hung), named with what failed; '' when none. */
function envFailureText(perTask: ReadonlyArray<{ taskId: string; envFailure?: string }>): string {
  const failed = perTask.filter((t) => t.envFailure !== undefined);
  if (!failed.length) return '';
  return `\nfailed in the environment, not by the policy (${failed.length} of ${perTask.length}, counted as failures):\n${failed.map((t) => `  ${t.taskId}: ${t.envFailure}`).join('\n')}`;
}

/** An imported model as imported (no run), under the env × model recipe's rollout settings. */
async function evaluateModel(opts: EvalOptions, out: Output): Promise<void> {
  if (opts.run !== undefined) throw new CliError('give --run ID or --model NAME, not both', EXIT.usage);
  if (opts.env === undefined) throw new CliError('--model needs --env ID (the environment to evaluate it on)', EXIT.usage);
  for (const flag of ['rehearsals', 'mode', 'step', 'commit', 'memories', 'robustness'] as const)
    if (opts[flag] !== undefined) throw new CliError(`--${flag} needs a run (--run ID); --model evaluates the model as imported`, EXIT.usage);
  const limit = opts.limit === undefined ? undefined : Number(opts.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new CliError('--limit must be a positive integer', EXIT.usage);
  const result = await withEngine(opts.home, async (api) => {
    out.line(`evaluating model ${opts.model} on ${opts.env} ${opts.split}…`);
    return api.call('evals.model', { model: opts.model!, env: opts.env!, split: opts.split as Split, limit });
  });
  out.result(result, () =>
    table([
      ['MODEL', 'ENV', 'SPLIT', 'RECIPE', 'TASKS', 'SUCCESS', 'SCORE', 'INVALID', 'ENV CALLS/TASK', 'TOKENS/TASK', 'WALL'],
      [
        result.model,
        result.env,
        result.split,
        result.recipe,
        String(result.tasks),
        pct(result.success),
        result.meanScore.toFixed(3),
        pct(result.invalidActionRate),
        result.envCallsPerTask.toFixed(2),
        result.tokensPerTask.toFixed(0),
        `${(result.wallMs / 1000).toFixed(1)} s`,
      ],
    ]) + envFailureText(result.perTask),
  );
}

export function registerEval(program: Command): void {
  leaf(program.command('eval').description('evaluate a run, an imported model, or the built-in oracle policy, on a split in the real environment'))
    .option('--run <id>', 'run id')
    .option('--model <name>', 'an imported model as imported, no run (with --env; the env × model recipe\'s rollout settings)')
    .option('--checkpoint <dir>', 'checkpoint folder')
    .option('--policy <policy>', 'built-in policy: oracle (the scripted expert / gold replay)')
    .option('--env <env>', 'environment id (with --policy; a run evaluates on its own)')
    .option('--split <split>', 'train | heldout | ood', 'heldout')
    .option('--limit <n>', 'evaluate n tasks: a seeded sample stratified by task family, each family its share of n (the same tasks every time; --policy oracle: the first n)')
    .option('--rehearsals <n>', 'test-time private rehearsals')
    .option('--mode <mode>', 'parallel | sequential')
    .option('--step <n>', 'the checkpoint step to evaluate (default: the last)')
    .option(
      '--memories <source>',
      'rehearse (fresh private rehearsals) | stored (the newest stored memory of each task that has one, edits included)',
    )
    .option(
      '--robustness [sizes]',
      "also evaluate with n filler tokens after the system text, after the instruction and in a memory block (default n = 1,4,16,64), and with a rehearsal memory; prints each cell's Δ and the verdict (within 5 points)",
    )
    .option(
      '--commit <mode>',
      'with rehearsals: safe (default: the clean prompt; a call the rehearsals predicted to fail is replaced by one predicted to succeed) | prompt (the memory in the prompt) | plan (follow the consensus plan while reality agrees)',
    )
    .action(
      act<EvalOptions>(async (_args, opts, out) => {
        if (!SPLITS.includes(opts.split as Split)) throw new CliError(`--split must be one of ${SPLITS.join(', ')}`, EXIT.usage);
        if (opts.model !== undefined && opts.policy === undefined) {
          await evaluateModel(opts, out);
          return;
        }
        if (opts.policy === undefined) {
          if (!opts.run) throw new CliError('give --run ID (a trained run), --model NAME (an imported model, with --env) or --policy oracle', EXIT.usage);
          await evaluateRun(opts, out);
          return;
        }
        if (opts.policy !== 'oracle') throw new CliError(`unknown --policy "${opts.policy}" (built-in: oracle)`, EXIT.usage);
        if (opts.env === undefined) throw new CliError('--policy oracle needs --env ID', EXIT.usage);
        const limit = opts.limit === undefined ? undefined : Number(opts.limit);
        if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new CliError('--limit must be a positive integer', EXIT.usage);
        await withUserEnvs(opts.home);
        const env = await getEnv(opts.env).catch((e: Error) => {
          throw new CliError(e.message, EXIT.usage);
        });
        try {
          const result = await runOracle(env, opts.split as Split, { limit });
          // A task the environment cannot fully check (tau2's NL assertions) is neither a pass nor a failure of the gold.
          const failed = result.perTask.filter((t) => !t.success && t.unchecked.length === 0);
          const unchecked = result.perTask.filter((t) => t.unchecked.length > 0);
          const summary = {
            env: result.env,
            split: result.split,
            policy: 'oracle',
            tasks: result.perTask.length,
            success: result.success,
            checkedSuccess: result.checkedSuccess,
            unchecked: unchecked.map((t) => t.taskId),
            score: result.score,
            envCalls: result.envCalls,
            envCallsPerTask: result.envCalls / Math.max(1, result.perTask.length),
            wallMs: result.wallMs,
            failed: failed.map((t) => t.taskId),
          };
          out.result(
            summary,
            () =>
              table([
                ['ENV', 'SPLIT', 'TASKS', 'SUCCESS', 'CHECKABLE', 'SUCCESS (CHECKABLE)', 'SCORE', 'ENV CALLS/TASK', 'WALL'],
                [
                  summary.env,
                  summary.split,
                  String(summary.tasks),
                  `${(summary.success * 100).toFixed(1)}%`,
                  String(summary.tasks - unchecked.length),
                  `${(summary.checkedSuccess * 100).toFixed(1)}%`,
                  summary.score.toFixed(3),
                  summary.envCallsPerTask.toFixed(2),
                  `${(summary.wallMs / 1000).toFixed(2)} s`,
                ],
              ]) +
              (unchecked.length
                ? `\nunchecked (${unchecked.length}, ${[...new Set(unchecked.flatMap((t) => t.unchecked))].join(', ')} cannot be checked here): ${summary.unchecked.join(', ')}`
                : '') +
              (failed.length ? `\nfailed: ${summary.failed.join(', ')}` : ''),
          );
        } finally {
          await env.close?.();
        }
      }),
    );
}
