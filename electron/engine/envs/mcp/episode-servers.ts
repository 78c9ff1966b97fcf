/**
 * Where an MCP episode's server comes from, per the registration's reset policy, so that episodes
 * (K parallel rollouts included) never share a server's mutable state unless the user said so:
 * - restart: a fresh process per episode, over a fresh `{episode_dir}` with the seed files copied in;
 * - tool: a pool of processes, each lent to one episode at a time after its reset tool has run;
 * - none: one shared process for everything (the user accepted shared state).
 * A server that failed during an episode (hung, crashed) is never lent again: the next episode gets a new one.
 */
import { readdirSync, rmSync } from 'node:fs';
import { cp, mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { EPISODE_DIR_PLACEHOLDER, type McpReset } from '../../../contract';
import { processRunning, processStartTime } from '../../home/process-identity';
import type { JsonValue } from '../types';
import { DEFAULT_CALL_LIMITS, McpConnection, startupTimeoutMs, type McpCallLimits, type McpServerSpec } from './connection';

/** A server lent to one episode; `release` returns it (or stops it) when the episode closes. */
export interface EpisodeServer {
  connection: McpConnection;
  /** The episode's own folder (restart policy), null otherwise. */
  episodeDir: string | null;
  release(): Promise<void>;
}

export interface EpisodeServers {
  /** The policy, in words, for listings and the GUI. */
  readonly description: string;
  acquire(): Promise<EpisodeServer>;
  close(): Promise<void>;
}

export const EPISODE_DIR = EPISODE_DIR_PLACEHOLDER;

/** The spec with `{episode_dir}` replaced in args, env values and cwd. */
export function substituteEpisodeDir(spec: McpServerSpec, dir: string): McpServerSpec {
  if (spec.transport !== 'stdio') return spec;
  const sub = (s: string) => s.split(EPISODE_DIR).join(dir);
  return {
    ...spec,
    args: (spec.args ?? []).map(sub),
    ...(spec.env ? { env: Object.fromEntries(Object.entries(spec.env).map(([k, v]) => [k, sub(v)])) } : {}),
    ...(spec.cwd !== undefined ? { cwd: sub(spec.cwd) } : {}),
  };
}

export function describeReset(reset: McpReset): string {
  switch (reset.kind) {
    case 'restart':
      return `restart: a fresh server process per episode${reset.seedFiles.length ? `, with ${reset.seedFiles.map((f) => basename(f)).join(', ')} copied into {episode_dir} first` : ''}`;
    case 'tool':
      // Separate processes are not separate state: what a server keeps in its own files is shared by the pool.
      return `tool: "${reset.tool}" is called before each episode; parallel episodes get separate server processes, which share whatever the server keeps outside its process (its files), so the reset tool must clear that`;
    case 'none':
      return 'none: one shared server; episodes see each other’s writes';
  }
}

/**
 * Episode folders are named for the process that made them (`ep-p<pid>s<start>-XXXXXX`), so that what
 * a killed process left behind can be told from what a live one (a trainer, `mcp serve`) is using.
 */
const EPISODE_NAME = /^ep-p(\d+)s(\d+|x)-[A-Za-z0-9]{6}$/;

function episodePrefix(): string {
  return `ep-p${process.pid}s${processStartTime(process.pid) ?? 'x'}-`;
}

/**
 * Remove the episode folders under `episodeRoot` whose process is gone (killed mid-episode), and
 * folders of the older unnamed form (`ep-XXXXXX`), which no running version makes. Returns how many.
 */
export function tidyDeadEpisodes(episodeRoot: string): number {
  let names: string[];
  try {
    names = readdirSync(episodeRoot);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const named = EPISODE_NAME.exec(name);
    const dead = named ? !processRunning(Number(named[1]), named[2] === 'x' ? null : named[2]!) : /^ep-[A-Za-z0-9]{6}$/.test(name);
    if (!dead) continue;
    rmSync(join(episodeRoot, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/**
 * Remove an episode's folder once its server is stopped. A server that had not quite exited (a
 * wrapper's child, slow under load) can still write into it while it is removed: rmdir then meets
 * ENOTEMPTY, which is retried. A folder that still cannot go never fails the episode (and with it a
 * training run or eval): it is named for this process, so the next start's tidyDeadEpisodes removes it.
 */
async function removeEpisodeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => undefined);
}

export class RestartServers implements EpisodeServers {
  readonly description: string;
  constructor(
    private readonly spec: McpServerSpec,
    private readonly seedFiles: readonly string[],
    private readonly episodeRoot: string,
    /** Longest a server may take to start and answer initialize (the registration's timeout; McpConnection's default without one). */
    private readonly connectTimeoutMs?: number,
  ) {
    this.description = describeReset({ kind: 'restart', seedFiles: [...seedFiles] });
  }

  /** A new episode folder (seed files copied in, then `prepare` run on it) and a server started over it. */
  async acquire(prepare?: (episodeDir: string) => Promise<void>): Promise<EpisodeServer> {
    await mkdir(this.episodeRoot, { recursive: true });
    // realpath: servers compare resolved paths, and the folder may sit behind a symlink.
    const dir = await realpath(await mkdtemp(join(this.episodeRoot, episodePrefix())));
    try {
      for (const file of this.seedFiles) await cp(file, join(dir, basename(file)), { recursive: true });
      await prepare?.(dir);
      const connection = await McpConnection.open(substituteEpisodeDir(this.spec, dir), this.connectTimeoutMs);
      return {
        connection,
        episodeDir: dir,
        release: async () => {
          await connection.close();
          await removeEpisodeDir(dir);
        },
      };
    } catch (error) {
      await removeEpisodeDir(dir);
      throw error;
    }
  }

  async close(): Promise<void> {
    // Each episode stops its own server; nothing is shared.
  }
}

class ResetToolServers implements EpisodeServers {
  readonly description: string;
  private readonly idle: McpConnection[] = [];
  private readonly lent = new Set<McpConnection>();
  private closed = false;

  constructor(
    private readonly spec: McpServerSpec,
    private readonly reset: Extract<McpReset, { kind: 'tool' }>,
    private readonly limits: McpCallLimits,
  ) {
    this.description = describeReset(reset);
  }

  async acquire(): Promise<EpisodeServer> {
    let connection = this.idle.pop();
    while (connection && !connection.alive) connection = this.idle.pop();
    connection ??= await McpConnection.open(this.spec, startupTimeoutMs(this.limits));
    const outcome = await connection.call(this.reset.tool, this.reset.arguments as { [key: string]: JsonValue }, this.limits);
    if (outcome.isError) {
      await connection.kill('its reset tool failed');
      throw new Error(`the reset tool "${this.reset.tool}" failed: ${outcome.text}`);
    }
    this.lent.add(connection);
    const lent = connection;
    return {
      connection: lent,
      episodeDir: null,
      release: async () => {
        this.lent.delete(lent);
        if (lent.alive && !this.closed) this.idle.push(lent);
        else await lent.close();
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.idle.splice(0), ...this.lent].map((c) => c.close()));
    this.lent.clear();
  }
}

class SharedServer implements EpisodeServers {
  readonly description: string;
  private current: Promise<McpConnection> | null = null;

  constructor(
    private readonly spec: McpServerSpec,
    reset: McpReset,
    private readonly connectTimeoutMs: number,
  ) {
    this.description = describeReset(reset);
  }

  async acquire(): Promise<EpisodeServer> {
    let connection = this.current ? await this.current.catch(() => null) : null;
    if (!connection?.alive) {
      if (connection) await connection.close();
      this.current = McpConnection.open(this.spec, this.connectTimeoutMs);
      this.current.catch(() => (this.current = null));
      connection = await this.current;
    }
    return { connection, episodeDir: null, release: async () => {} };
  }

  async close(): Promise<void> {
    const connection = this.current ? await this.current.catch(() => null) : null;
    this.current = null;
    await connection?.close();
  }
}

/**
 * The episode servers of a registration. `episodeRoot` is where restart policy makes its episode
 * folders; the limits' timeout also bounds each server's start-up (startupTimeoutMs), as
 * `--timeout-ms` asks.
 */
export function episodeServers(spec: McpServerSpec, reset: McpReset, opts: { episodeRoot: string; limits?: McpCallLimits }): EpisodeServers {
  const limits = opts.limits ?? DEFAULT_CALL_LIMITS;
  switch (reset.kind) {
    case 'restart':
      if (spec.transport !== 'stdio') throw new Error('a server reached by URL cannot be restarted per episode; use reset "tool" or "none"');
      return new RestartServers(spec, reset.seedFiles, opts.episodeRoot, startupTimeoutMs(limits));
    case 'tool':
      return new ResetToolServers(spec, reset, limits);
    case 'none':
      return new SharedServer(spec, reset, startupTimeoutMs(limits));
  }
}
