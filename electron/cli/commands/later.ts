import type { Command } from 'commander';
import { notAvailable } from '../output';
import { act, leaf } from './common';

/**
 * Commands whose engine parts land with later issues. They parse their real flags (so
 * scripts can be written now) and fail with a clear reason and exit code 4 — never a fake success.
 */
export function registerLater(program: Command): void {
  leaf(program.command('experiment').description('train every method on the same budget and print the side-by-side table'))
    .requiredOption('--suite <suite>', 'quick | full')
    .option('--out <dir>', 'where to write the table and plots')
    .action(
      act(async () => {
        throw notAvailable('the experiment table', 'the algorithms issue');
      }),
    );
}
