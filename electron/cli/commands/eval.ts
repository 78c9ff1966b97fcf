import type { Command } from 'commander';
import { getEnv } from '../../engine/envs/registry';
import { runOracle } from '../../engine/envs/oracle';
import { SPLITS, type Split } from '../../engine/envs/types';
import { CliError, EXIT, notAvailable, table } from '../output';
import { act, leaf, type CommonOptions } from './common';

interface EvalOptions extends CommonOptions {
  run?: string;
  checkpoint?: string;
  policy?: string;
  env: string;
  split: string;
  limit?: string;
  rehearsals?: string;
  mode?: string;
}

export function registerEval(program: Command): void {
  leaf(program.command('eval').description('evaluate a run, or the built-in oracle policy, on a split in the real environment'))
    .option('--run <id>', 'run id')
    .option('--checkpoint <dir>', 'checkpoint folder')
    .option('--policy <policy>', 'built-in policy: oracle (the scripted expert / gold replay)')
    .requiredOption('--env <env>', 'environment id')
    .option('--split <split>', 'train | heldout | ood', 'heldout')
    .option('--limit <n>', 'evaluate at most this many tasks')
    .option('--rehearsals <n>', 'test-time private rehearsals')
    .option('--mode <mode>', 'parallel | sequential')
    .action(
      act<EvalOptions>(async (_args, opts, out) => {
        if (!SPLITS.includes(opts.split as Split)) throw new CliError(`--split must be one of ${SPLITS.join(', ')}`, EXIT.usage);
        if (opts.policy === undefined) throw notAvailable('evaluating a trained run', 'the algorithms issue');
        if (opts.policy !== 'oracle') throw new CliError(`unknown --policy "${opts.policy}" (built-in: oracle)`, EXIT.usage);
        const limit = opts.limit === undefined ? undefined : Number(opts.limit);
        if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new CliError('--limit must be a positive integer', EXIT.usage);
        const env = await getEnv(opts.env).catch((e: Error) => {
          throw new CliError(e.message, EXIT.usage);
        });
        try {
          const result = await runOracle(env, opts.split as Split, { limit });
          const failed = result.perTask.filter((t) => !t.success);
          const summary = {
            env: result.env,
            split: result.split,
            policy: 'oracle',
            tasks: result.perTask.length,
            success: result.success,
            score: result.score,
            envCalls: result.envCalls,
            envCallsPerTask: result.envCalls / Math.max(1, result.perTask.length),
            wallMs: result.wallMs,
            failed: failed.map((t) => t.taskId),
          };
          out.result(summary, () =>
            table([
              ['ENV', 'SPLIT', 'TASKS', 'SUCCESS', 'SCORE', 'ENV CALLS/TASK', 'WALL'],
              [summary.env, summary.split, String(summary.tasks), `${(summary.success * 100).toFixed(1)}%`, summary.score.toFixed(3), summary.envCallsPerTask.toFixed(2), `${(summary.wallMs / 1000).toFixed(2)} s`],
            ]) + (failed.length ? `\nfailed: ${summary.failed.join(', ')}` : ''),
          );
        } finally {
          await env.close?.();
        }
      }),
    );
}
