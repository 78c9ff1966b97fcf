import type { Command } from 'commander';
import { withEngine } from '../engine-session';
import { CliError, EXIT } from '../output';
import { CommitMode } from '../../contract';
import { act, leaf, type CommonOptions } from './common';

interface RehearseOptions extends CommonOptions {
  run: string;
  env: string;
  task: string;
  rehearsals: string;
  mode: string;
  step?: string;
  commit?: string;
}

export function registerRehearse(program: Command): void {
  leaf(program.command('rehearse').description('private rehearsals of one task with a trained run (no env calls), building a rehearsal memory'))
    .requiredOption('--run <id>', 'run id')
    .requiredOption('--env <env>', 'environment id')
    .requiredOption('--task <id>', 'task id')
    .option('--rehearsals <n>', 'how many', '4')
    .option('--mode <mode>', 'parallel | sequential', 'parallel')
    .option('--step <n>', 'checkpoint step (default: the last)')
    .option('--commit <mode>', 'then commit one real run with the memory: prompt | plan | safe')
    .action(
      act<RehearseOptions>(async (_args, opts, out) => {
        const rehearsals = Number(opts.rehearsals);
        if (!Number.isInteger(rehearsals) || rehearsals < 1 || rehearsals > 16) throw new CliError('--rehearsals must be 1–16', EXIT.usage);
        if (opts.mode !== 'parallel' && opts.mode !== 'sequential') throw new CliError('--mode must be parallel or sequential', EXIT.usage);
        if (opts.commit !== undefined && !CommitMode.options.includes(opts.commit as CommitMode)) throw new CliError(`--commit must be ${CommitMode.options.join(', ')}`, EXIT.usage);
        const step = opts.step === undefined ? undefined : Number(opts.step);
        await withEngine(opts.home, async (api) => {
          const run = await api.call('runs.get', { id: opts.run });
          if (run.env !== opts.env) throw new CliError(`run ${run.id} trained on ${run.env}, not ${opts.env}`, EXIT.usage);
          out.line(`rehearsing ${opts.task} ${rehearsals}× (${opts.mode})…`);
          const { memory, rehearsalIds } = await api.call('memories.rehearse', { runId: run.id, step, taskId: opts.task, rehearsals, mode: opts.mode as 'parallel' });
          const committed = opts.commit ? await api.call('memories.commit', { memoryId: memory.id, runId: run.id, step, commit: opts.commit as CommitMode }) : null;
          out.result({ memory: memory.id, rehearsalIds, structured: memory.structured, text: memory.text, committed }, () =>
            [
              `memory ${memory.id} (edit it in the workbench's Memory view):`,
              memory.text,
              ...(committed
                ? [``, `committed run ${committed.rolloutId}: reward ${committed.reward.toFixed(3)}, ${committed.success ? 'success' : 'no success'}, ${committed.envCalls} env calls${committed.fellBackAtTurn !== null ? `, left the plan at turn ${committed.fellBackAtTurn}` : ''}`]
                : []),
            ].join('\n'),
          );
        });
      }),
    );
}
