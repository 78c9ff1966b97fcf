import type { Command } from 'commander';
import type { ProviderStatus } from '../../contract';
import { withEngine } from '../engine-session';
import { act, leaf } from './common';

export function registerSystem(program: Command): void {
  leaf(program.command('info').description('versions, execution providers that load here, data home')).action(
    act(async (_args, opts, out) => {
      const info = await withEngine(opts.home, (api) => api.call('system.info'));
      out.result(info, () =>
        [
          `${info.app.name} ${info.app.version}`,
          `node ${info.versions.node}   onnxruntime ${info.versions.onnxruntime}   sqlite ${info.versions.sqlite}`,
          ...providerLines(info.providers),
          `cpus ${info.cpuCount}   memory ${(info.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB   ${info.platform}/${info.arch}`,
          `data home ${info.dataHome}`,
        ].join('\n'),
      );
    }),
  );
}

/**
 * One line per provider: which load, and for those that do not, the runtime's reason (already one
 * readable line, see providerReason). A line each keeps a reason whole instead of cutting it to
 * fit several on one line.
 */
export function providerLines(providers: readonly ProviderStatus[]): string[] {
  const width = Math.max(...providers.map((p) => p.name.length));
  return ['providers:', ...providers.map((p) => `  ${p.name.padEnd(width)}  ${p.available ? 'loads' : `does not load: ${p.detail.split('\n')[0]}`}`)];
}
