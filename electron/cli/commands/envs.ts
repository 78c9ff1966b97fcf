import type { Command } from 'commander';
import { withEngine } from '../engine-session';
import { table } from '../output';
import { act, leaf } from './common';

export function registerEnvs(program: Command): void {
  const envs = program.command('envs').description('environments: list them, show their tools');
  leaf(envs.command('list', { isDefault: true }).description('environments with task counts per split')).action(
    act(async (_args, opts, out) => {
      const result = await withEngine(opts.home, (api) => api.call('envs.list'));
      out.result(result, () =>
        result.items.length === 0
          ? 'No environments registered.'
          : table([
              ['ID', 'TRACK', 'TOOLS', 'TRAIN', 'HELDOUT', 'OOD', 'DESCRIPTION'],
              ...result.items.map((e) => [e.id, e.track, String(e.toolCount), String(e.taskCounts.train), String(e.taskCounts.heldout), String(e.taskCounts.ood), e.description]),
            ]),
      );
    }),
  );
  leaf(envs.command('show').argument('<id>', 'environment id').description('one environment with its tool schemas')).action(
    act(async ([id], opts, out) => {
      const env = await withEngine(opts.home, (api) => api.call('envs.get', { id }));
      out.result(env, () => [`${env.id} — ${env.description}`, ...env.tools.map((t) => `  ${t.name}: ${t.description.split('\n')[0]}`)].join('\n'));
    }),
  );
}
