import type { Command } from 'commander';
import { createEngine } from '../../engine/host';
import { serve } from '../../server';
import { rendererDist } from '../paths';
import { act, leaf, type CommonOptions } from './common';

export function registerServe(program: Command): void {
  leaf(program.command('serve').description('web mode: the workbench in your browser, on 127.0.0.1 with a session token'))
    .option('--port <port>', 'port (default: a free one)')
    .option('--host <host>', 'loopback address to bind', '127.0.0.1')
    .action(
      act<CommonOptions & { port?: string; host: string }>(async (_args, opts, out) => {
        const engine = createEngine({ home: opts.home });
        try {
          const server = await serve({ engine, staticDir: rendererDist, host: opts.host, port: opts.port === undefined ? undefined : Number(opts.port) });
          out.line(`EnvACE Workbench (web mode) at ${server.url}`);
          out.line(`data home: ${engine.services.paths.home} — press Ctrl+C to stop`);
          out.result({ url: server.url, port: server.port, home: engine.services.paths.home }, () => undefined);
          await new Promise<void>((resolve) => {
            const stop = () => resolve();
            process.once('SIGINT', stop);
            process.once('SIGTERM', stop);
          });
          await server.close();
        } finally {
          await engine.close();
        }
      }),
    );
}
