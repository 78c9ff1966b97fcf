import type { Command } from 'commander';
import { resolveHome } from '../../engine/home';
import { unlockHome } from '../../engine/home/lease';
import { CliError, EXIT } from '../output';
import { act, leaf, type CommonOptions } from './common';

interface UnlockOptions extends CommonOptions {
  force?: boolean;
}

/**
 * `envace home unlock`: free a data home whose lock names an engine that is gone, saying each check.
 * Runs without an engine (opening one would try to take the lease it is asked about).
 */
export function registerHome(program: Command): void {
  const home = program.command('home').description('the data home itself');
  leaf(home.command('unlock'))
    .description('free the data home when its lock names an engine that no longer runs (one on this machine never needs it; one on another host sharing the folder may)')
    .option('--force', 'also remove a lock an engine on another host touched in the last two minutes')
    .action(
      act<UnlockOptions>(async (_args, opts, out) => {
        const dir = resolveHome(opts.home);
        const report = unlockHome(dir, { force: opts.force });
        out.result({ home: dir, ...report }, () => [`data home ${dir}`, ...report.checks.map((c) => `${c.passed ? '✓' : '✗'} ${c.check}: ${c.detail}`)].join('\n'));
        if (!report.free) throw new CliError(`the data home ${dir} stays locked (see the checks above)`, EXIT.conflict);
      }),
    );
}
