import type { Command } from 'commander';
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
          `providers: ${info.providers.map((p) => `${p.name} ${p.available ? 'yes' : `no (${p.detail.slice(0, 80)})`}`).join('; ')}`,
          `cpus ${info.cpuCount}   memory ${(info.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB   ${info.platform}/${info.arch}`,
          `data home ${info.dataHome}`,
        ].join('\n'),
      );
    }),
  );
}
