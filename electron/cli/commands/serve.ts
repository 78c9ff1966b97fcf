import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { createEngine } from '../../engine/host';
import { serve, ServeError } from '../../server';
import { isLoopbackHost } from '../../engine/loopback';
import { appRoot, rendererDist } from '../paths';
import { CliError, EXIT } from '../output';
import { act, leaf, type CommonOptions } from './common';

export const DEFAULT_PORT = 7357;

export interface RendererCheck {
  /** The checkout root (renderer/ and node_modules/ below it). */
  root: string;
  /** The folder web mode serves (out/renderer). */
  dist: string;
  log: (line: string) => void;
  /** Runs the Vite build; injectable so tests need not build. */
  build?: (root: string) => { ok: boolean; detail: string };
}

function viteBuild(root: string): { ok: boolean; detail: string } {
  const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn'], { cwd: root, encoding: 'utf8' });
  return { ok: result.status === 0, detail: `${result.stderr ?? ''}${result.error?.message ?? ''}`.trim().split('\n').slice(-5).join('\n') };
}

/**
 * A fresh checkout has no out/renderer (`npm start` builds it; `envace serve` alone did not), and
 * the server then answers every page with 503. Build it once, as `npm start` does, saying so first
 * because it takes a while; where it cannot be built, say that first instead of serving a blank 503.
 */
export function ensureRendererBuilt({ root, dist, log, build = viteBuild }: RendererCheck): 'present' | 'built' | 'missing' {
  if (fs.existsSync(path.join(dist, 'index.html'))) return 'present';
  const fix = `the page answers 503 until \`npm run build:renderer\` succeeds in ${root} (the API works meanwhile)`;
  const buildable = fs.existsSync(path.join(root, 'renderer', 'vite.config.ts')) && fs.existsSync(path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'));
  if (!buildable) {
    log(`The web page is not built (${path.join(dist, 'index.html')} is missing) and Vite is not installed here: ${fix}.`);
    return 'missing';
  }
  log(`Building the web page first (${path.join(dist, 'index.html')} is missing; this happens once and takes a few seconds)…`);
  const built = build(root);
  if (built.ok && fs.existsSync(path.join(dist, 'index.html'))) return 'built';
  log(`The web page did not build${built.detail ? `:\n${built.detail}\n` : '; '}${fix}.`);
  return 'missing';
}

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
        // On stderr with --json, so stdout keeps one JSON object.
        ensureRendererBuilt({ root: appRoot, dist: rendererDist, log: (line) => (opts.json ? process.stderr.write(`${line}\n`) : out.line(line)) });
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
