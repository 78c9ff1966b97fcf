import type { Command } from 'commander';
import { createEngine } from '../../engine/host';
import { serve, ServeError } from '../../server';
import { isLoopbackHost } from '../../server/security';
import { rendererDist } from '../paths';
import { CliError, EXIT } from '../output';
import { act, leaf, type CommonOptions } from './common';

export const DEFAULT_PORT = 7357;

export function registerServe(program: Command): void {
  leaf(program.command('serve').description('web mode: the workbench in your browser, on 127.0.0.1 with a session token'))
    .option('--port <port>', `port (default ${DEFAULT_PORT}, or a free one if that is taken)`)
    .option('--host <host>', 'loopback address to bind', '127.0.0.1')
    .action(
      act<CommonOptions & { port?: string; host: string }>(async (_args, opts, out) => {
        // Flags are checked before an engine opens the data home: a typo is a usage error (exit 2).
        if (!isLoopbackHost(opts.host)) throw new CliError(`web mode listens on loopback only; refusing --host "${opts.host}" (use 127.0.0.1, ::1 or localhost)`, EXIT.usage);
        const port = opts.port === undefined ? undefined : /^\d{1,5}$/.test(opts.port) ? Number(opts.port) : NaN;
        if (port !== undefined && !(port <= 65535)) throw new CliError(`--port must be a port number (0-65535), got "${opts.port}"`, EXIT.usage);
        const engine = createEngine({ home: opts.home });
        try {
          const base = { engine, staticDir: rendererDist, host: opts.host };
          // A stable default port keeps bookmarks working; an explicit --port must be honoured or fail.
          const server =
            port !== undefined
              ? await serve({ ...base, port })
              : await serve({ ...base, port: DEFAULT_PORT }).catch((error: unknown) => {
                  if (!(error instanceof ServeError && error.reason === 'port_in_use')) throw error;
                  return serve({ ...base, port: 0 });
                });
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
