import type { Command } from 'commander';
import type { Run, RunStatus, WorkbenchApi } from '../../contract';
import { withEngine } from '../engine-session';
import { CliError, EXIT, relativeTime, table, type Output } from '../output';
import { followRun, unfinishedRun } from './train';
import { act, leaf, type CommonOptions } from './common';

function runRow(run: Run): string[] {
  const progress = run.totalSteps ? `${run.currentStep}/${run.totalSteps}` : '-';
  return [run.id, run.status, run.algo, run.env, run.model, progress, relativeTime(run.createdAt)];
}

export function registerRuns(program: Command): void {
  const runs = program.command('runs').description('list, show, resume, fork and delete training runs');

  leaf(runs.command('list', { isDefault: true }).description('list runs, newest first'))
    .option('--status <status>', 'only runs with this status')
    .option('--search <text>', 'match name, env, method, model or id')
    .option('--limit <n>', 'at most this many', '50')
    .action(
      act<CommonOptions & { status?: string; search?: string; limit: string }>(async (_args, opts, out) => {
        const limit = Number(opts.limit);
        const result = await withEngine(opts.home, (api) => api.call('runs.list', { status: opts.status as RunStatus | undefined, search: opts.search, limit }));
        out.result(result, () =>
          result.items.length === 0
            ? 'No runs yet. Start one with `envace train --env retail --algo envace --preset tiny`, or open the workbench with `npm start`.'
            : table([['ID', 'STATUS', 'METHOD', 'ENV', 'MODEL', 'STEP', 'CREATED'], ...result.items.map(runRow)]) +
              (result.total > result.items.length ? `\n(${result.total - result.items.length} more)` : ''),
        );
      }),
    );

  leaf(runs.command('show').argument('<id>', 'run id').description('one run with its config and checkpoints')).action(
    act(async ([id], opts, out) => {
      const run = await withEngine(opts.home, (api) => api.call('runs.get', { id }));
      out.result(run, () =>
        [
          `${run.name} (${run.id})`,
          `status       ${run.status}${run.error ? ` — ${run.error}` : ''}`,
          `method       ${run.algo}   env ${run.env}   model ${run.model}`,
          `progress     ${run.currentStep}/${run.totalSteps}`,
          `checkpoints  ${run.checkpoints.map((c) => c.step).join(', ') || 'none'}`,
          `config       ${JSON.stringify(run.config)}`,
        ].join('\n'),
      );
    }),
  );

  leaf(runs.command('delete').argument('<id>', 'run id').description('delete a run that is not running')).action(
    act(async ([id], opts, out) => {
      const result = await withEngine(opts.home, (api) => api.call('runs.delete', { id }));
      out.result({ ...result, id }, () => `deleted ${id}`);
    }),
  );

  const follow = async (api: WorkbenchApi, run: Run, out: Output) => {
    out.line(`run ${run.id}: ${run.name}, from step ${run.currentStep} of ${run.totalSteps}`);
    const status = await followRun(api, run.id, out.json);
    const final = await api.call('runs.get', { id: run.id });
    out.result({ run: run.id, status, step: final.currentStep, totalSteps: final.totalSteps, error: final.error, parentRunId: final.parentRunId }, () =>
      `${status}: ${final.currentStep}/${final.totalSteps} steps${final.error ? ` — ${final.error}` : ''}`,
    );
    if (status !== 'completed') throw unfinishedRun(final);
  };

  leaf(runs.command('resume').argument('<id>', 'run id').description('resume an interrupted, failed or cancelled run from its last checkpoint')).action(
    act(async ([id], opts, out) => {
      await withEngine(opts.home, async (api) => follow(api, await api.call('runs.resume', { id }), out));
    }),
  );

  leaf(runs.command('fork').argument('<id>', 'run id').requiredOption('--from-step <n>', 'checkpoint step').description('a new run starting from a checkpoint of this one')).action(
    act<CommonOptions & { fromStep: string }>(async ([id], opts, out) => {
      const fromStep = Number(opts.fromStep);
      if (!Number.isInteger(fromStep) || fromStep < 0) throw new CliError('--from-step must be a checkpoint step (a whole number)', EXIT.usage);
      await withEngine(opts.home, async (api) => follow(api, await api.call('runs.fork', { id, fromStep }), out));
    }),
  );
}
