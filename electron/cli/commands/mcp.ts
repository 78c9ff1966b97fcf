import fs from 'node:fs';
import type { Command } from 'commander';
import { closeEnvs, EnvOptionsError, getEnv, UnknownEnvError } from '../../engine/envs/registry';
import { WorldSizeError } from '../../engine/envs/household/world';
import { WorldConfigError } from '../../engine/envs/retail/world';
import { SPLITS, type Split, type ToolEnv } from '../../engine/envs/types';
import { EpisodeBook } from '../../engine/mcp-serve/episodes';
import { McpHttpError, serveHttp } from '../../engine/mcp-serve/http';
import { serveStdio } from '../../engine/mcp-serve/server';
import { servedTaskLines } from '../../engine/mcp-serve/taskfile';
import { servedTools, ServedToolsError } from '../../engine/mcp-serve/tools';
import { isLoopbackHost } from '../../engine/loopback';
import { withUserEnvs } from '../engine-session';
import { CliError, EXIT } from '../output';
import { act, leaf, type CommonOptions } from './common';

interface ServeOptions extends CommonOptions {
  env: string;
  split: string;
  stdio?: boolean;
  port?: string;
  host: string;
  maxEpisodes?: string;
  episodeIdleS?: string;
  envOption: string[];
}

/**
 * `--env-option worldSize=20 --env-option worldMode=procedural`: the world a run trained in (its env
 * options), so a served env lists the run's tasks. Values are JSON where they parse as JSON.
 */
export function parseEnvOptions(pairs: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`--env-option takes KEY=VALUE, got "${pair}"`, EXIT.usage);
    const key = pair.slice(0, eq);
    if (['__proto__', 'constructor', 'prototype'].includes(key)) throw new CliError(`--env-option cannot name "${key}"`, EXIT.usage);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a plain string
    }
    out[key] = value;
  }
  return { ...out };
}

function split(value: string): Split {
  if (!(SPLITS as readonly string[]).includes(value)) throw new CliError(`--split must be one of ${SPLITS.join(', ')}, got "${value}"`, EXIT.usage);
  return value as Split;
}

function wholeNumber(value: string | undefined, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) throw new CliError(`${flag} must be a whole number from ${min} to ${max}, got "${value}"`, EXIT.usage);
  return n;
}

/** Whether an environment's refusal names this option, as a word: as written (worldSize), in words (world size) or singular (counts: task count). */
function namesOption(message: string, key: string): boolean {
  const text = message.toLowerCase();
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return [key.toLowerCase(), words, words.replace(/s$/, '')].some((form) => {
    if (form.length < 2) return false;
    for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) {
      if (!/[a-z0-9]/.test(text[at - 1] ?? ' ') && !/[a-z0-9]/.test(text[at + form.length] ?? ' ')) return true;
    }
    return false;
  });
}

/**
 * An option value the environment refused (worldSize=1e12 and the like) as a usage error: the
 * `--env-option` as typed, then the environment's own words, which give the allowed range.
 */
export function envOptionValueError(message: string, pairs: readonly string[]): CliError {
  const named = pairs.filter((pair) => namesOption(message, pair.slice(0, pair.indexOf('='))));
  const given = (named.length ? named : pairs).map((pair) => `--env-option ${pair}`).join(', ');
  return new CliError(given ? `${given}: ${message}` : message, EXIT.usage);
}

/** The env by id, the data home's user MCP servers included (so a registered server can be re-served). */
async function servedEnv(home: string | undefined, id: string, optionPairs: readonly string[] = []): Promise<ToolEnv> {
  const options = parseEnvOptions(optionPairs);
  await withUserEnvs(home);
  try {
    return await getEnv(id, options);
  } catch (error) {
    if (error instanceof UnknownEnvError) throw new CliError(error.message, EXIT.notFound);
    if (error instanceof EnvOptionsError) throw new CliError(error.message, EXIT.usage);
    // What the environments throw for a value out of its range or of the wrong kind.
    if (error instanceof RangeError || error instanceof WorldConfigError || error instanceof WorldSizeError) throw envOptionValueError(error.message, optionPairs);
    throw error;
  }
}

function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

export function registerMcp(program: Command): void {
  const mcp = program.command('mcp').description('our environments as MCP servers, for any MCP client');
  leaf(mcp.command('serve').description('serve an environment over MCP: its tools plus start_task / finish / list_tasks (stdio by default)'))
    .requiredOption('--env <id>', 'environment to serve (built-in or a registered MCP one)')
    .option('--split <split>', 'split start_task draws from when no task_id is given, and list_tasks lists', 'train')
    .option('--stdio', 'speak MCP on stdin/stdout (the default)')
    .option('--port <port>', 'speak streamable HTTP on 127.0.0.1:PORT instead (0: a free port), behind a printed token')
    .option('--host <host>', 'loopback address to bind with --port', '127.0.0.1')
    .option('--max-episodes <n>', 'most episodes open at once; one more closes the longest idle (default 16)')
    .option('--episode-idle-s <seconds>', 'close an episode after this many seconds without a call (default 600); until then its id works from any session')
    .option('--env-option <key=value>', "an option of the environment's world (as a run's worldSize / worldMode give it); repeat for more", (v: string, prev: string[]) => [...prev, v], [])
    .action(
      act<ServeOptions>(async (_args, opts, out) => {
        // Flags first: a typo is a usage error (exit 2) before any environment is built.
        if (opts.stdio && opts.port !== undefined) throw new CliError('--stdio and --port exclude each other: pick one transport', EXIT.usage);
        if (opts.port === undefined && opts.json) throw new CliError('--json prints on stdout, which stdio gives to the MCP protocol; use it with --port', EXIT.usage);
        if (!isLoopbackHost(opts.host)) throw new CliError(`envace mcp serve listens on loopback only; refusing --host "${opts.host}"`, EXIT.usage);
        const served = split(opts.split);
        const port = wholeNumber(opts.port, '--port', 0, 65535);
        const maxEpisodes = wholeNumber(opts.maxEpisodes, '--max-episodes', 1, 10_000);
        const idleSeconds = wholeNumber(opts.episodeIdleS, '--episode-idle-s', 1, 7 * 24 * 3600);
        if (port === undefined) {
          // stdout is the protocol's: anything an env or library prints goes to stderr instead.
          console.log = console.error;
          console.info = console.error;
        }
        const env = await servedEnv(opts.home, opts.env, opts.envOption);
        try {
          try {
            servedTools(env, served);
          } catch (error) {
            if (error instanceof ServedToolsError) throw new CliError(error.message, EXIT.notAvailable);
            throw error;
          }
          const book = new EpisodeBook(env, served, { maxEpisodes, idleSeconds });
          if (port === undefined) {
            process.stderr.write(`envace: serving ${env.id} (${served} split) over MCP on stdio\n`);
            await serveStdio(book, stopSignal());
            return;
          }
          const server = await serveHttp(book, { port, host: opts.host }).catch((error: unknown) => {
            if (error instanceof McpHttpError) throw new CliError(error.message, error.reason === 'bad_host' ? EXIT.usage : EXIT.error);
            throw error;
          });
          out.line(`EnvACE ${env.id} over MCP (streamable HTTP) at ${server.url}`);
          out.line(`${env.tasks(served).length} ${served} tasks; episode cap ${book.maxEpisodes}, idle timeout ${book.idleMs / 1000} s — press Ctrl+C to stop`);
          out.result({ url: server.url, port: server.port, env: env.id, split: served }, () => undefined);
          await stopSignal();
          await server.close();
        } finally {
          await closeEnvs();
        }
      }),
    );
  leaf(mcp.command('tasks').description("an environment's tasks as a task file for `envace envs add-mcp` over `envace mcp serve`"))
    .requiredOption('--env <id>', 'environment whose tasks to write')
    .option('--split <split>', 'split to write', 'train')
    .option('--limit <n>', 'only the first N tasks')
    .requiredOption('--out <file>', 'JSONL file to write')
    .action(
      act<CommonOptions & { env: string; split: string; limit?: string; out: string }>(async (_args, opts, out) => {
        const which = split(opts.split);
        const limit = wholeNumber(opts.limit, '--limit', 1);
        const env = await servedEnv(opts.home, opts.env);
        try {
          const lines = servedTaskLines(env, which, { limit });
          fs.writeFileSync(opts.out, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
          out.result({ file: opts.out, env: env.id, split: which, tasks: lines.length }, () => `wrote ${lines.length} ${which} tasks of ${env.id} to ${opts.out}`);
        } finally {
          await closeEnvs();
        }
      }),
    );
}
