/**
 * The user's MCP environments: one file in the data home (`mcp-servers.json`), one loader for every
 * entry point (the host, the compute worker, the CLI, the experiment runner), so that whatever can
 * list an environment can also train and evaluate on it.
 *
 * Registration copies the task file and any seed files into `<home>/mcp/<id>/`, so the entry keeps
 * working when the originals move, and the GUI and web mode only ever name files inside the home.
 * A broken entry (or a corrupt file) is reported for that entry and never stops other environments.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ContractError, EnvsAddMcpInput, FolderName, McpReset, McpServer, type McpRegistration } from '../../contract';
import { writeFileAtomicSync } from '../../../native-models/io/atomic';
import { readBoundedJsonFile } from '../../../native-models/io/bounded-file';
import type { McpServerSpec } from './mcp/connection';
import { mcpRegistration } from './mcp/env';
import { tidyDeadEpisodes } from './mcp/episode-servers';
import { MAX_TASK_FILE_CHARS, readTaskFile } from './mcp/taskfile';
import { getEnv, isBuiltinEnv, registerEnv, unregisterEnv, type EnvRegistration } from './registry';
import type { HomePaths } from '../home';
import { folderNameProblem } from '../../contract/folder-name';
import { checkUserFile, childFolder, UserPathError } from '../home/user-paths';

export const USER_ENVS_FILE = 'mcp-servers.json';
/** A seed file is copied into every episode folder: keep it to what a server's state file needs. */
const MAX_SEED_BYTES = 64 * 1024 * 1024;
const SERVERS_FILE_BOUNDS = { maxBytes: 8 * 1024 * 1024, maxDepth: 32 };

export function userEnvsFile(paths: HomePaths): string {
  return path.join(paths.home, USER_ENVS_FILE);
}

const ID_WHAT = 'an MCP environment id';

/** `<home>/mcp`: one folder per registration. */
export function userEnvsRoot(paths: HomePaths): string {
  return path.join(paths.home, 'mcp');
}

/**
 * `<home>/mcp/<id>`: the registration's copies of its task and seed files, and its episode folders.
 * Throws for an id that is not a safe folder name (`../runs` once cleared every run): nothing is ever
 * cleared outside `mcp/`.
 */
export function userEnvDir(paths: HomePaths, id: string): string {
  try {
    return childFolder(userEnvsRoot(paths), id, ID_WHAT);
  } catch (error) {
    if (error instanceof UserPathError) throw new ContractError('invalid_input', error.message);
    throw error;
  }
}

/** What the file holds once written by this version; older entries (no reset) read as restart. */
const StoredEntry = z.strictObject({
  // A hand-edited file is held to the same rule as a registration: its id names a folder that is cleared.
  id: FolderName(ID_WHAT),
  description: z.string().optional(),
  server: McpServer,
  taskFile: z.string(),
  reset: McpReset.optional(),
  timeoutMs: z.number().int().default(10_000),
  maxOutputChars: z.number().int().default(8_000),
});

export interface UserEnvProblem {
  /** The entry's id when it could be read, null for a problem with the file itself. */
  id: string | null;
  message: string;
}

function defaultReset(server: McpServer): McpReset {
  return 'command' in server ? { kind: 'restart', seedFiles: [] } : { kind: 'none', sharedState: true };
}

/** The file's items as stored, untouched; `corrupt` says why the file as a whole cannot be read. */
function readStoredItems(paths: HomePaths): { items: unknown[]; corrupt: string | null } {
  const file = userEnvsFile(paths);
  if (!fs.existsSync(file)) return { items: [], corrupt: null };
  let json: unknown;
  try {
    json = readBoundedJsonFile(file, SERVERS_FILE_BOUNDS, file);
  } catch (error) {
    return { items: [], corrupt: `${file} cannot be read (${(error as Error).message})` };
  }
  if (!Array.isArray(json)) return { items: [], corrupt: `${file} must hold a JSON array of environments` };
  return { items: json, corrupt: null };
}

/** Copies of the file that could not be read when it was next written (`mcp-servers.json.corrupt-<time>`). */
function setAsideCopies(paths: HomePaths): string[] {
  try {
    return fs.readdirSync(paths.home).filter((name) => name.startsWith(`${USER_ENVS_FILE}.corrupt-`));
  } catch {
    return [];
  }
}

/** Every entry of the file, each parsed on its own; problems are returned, never thrown. */
export function readUserEnvs(paths: HomePaths): { entries: McpRegistration[]; problems: UserEnvProblem[] } {
  const file = userEnvsFile(paths);
  const { items, corrupt } = readStoredItems(paths);
  const problems: UserEnvProblem[] = setAsideCopies(paths).map((name) => ({
    id: null,
    message: `${path.join(paths.home, name)} is an earlier ${USER_ENVS_FILE} that could not be read, kept aside when the file was next written; its environments are not loaded (repair it and add them again, or delete it)`,
  }));
  if (corrupt) return { entries: [], problems: [...problems, { id: null, message: `${corrupt}; fix it, or remove it to start over (adding or removing an environment keeps it aside as ${USER_ENVS_FILE}.corrupt-<time>)` }] };
  const entries: McpRegistration[] = [];
  items.forEach((raw: unknown, i) => {
    const id = raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : null;
    const parsed = StoredEntry.safeParse(raw);
    if (!parsed.success) {
      problems.push({ id, message: `entry ${i + 1} of ${file} is invalid: ${parsed.error.issues.map((x) => `${x.path.join('.') || '(entry)'}: ${x.message}`).join('; ')}` });
      return;
    }
    entries.push({ ...parsed.data, reset: parsed.data.reset ?? defaultReset(parsed.data.server) });
  });
  return { entries, problems };
}

/** The server spec the connection layer takes: relative cwd resolved against the registration's folder. */
export function serverSpec(entry: McpRegistration): McpServerSpec {
  const s = entry.server;
  if ('url' in s) return { transport: 'http', url: s.url };
  return { transport: 'stdio', command: s.command, args: s.args, env: s.env, ...(s.cwd !== undefined ? { cwd: s.cwd } : {}) };
}

function registrationFor(paths: HomePaths, entry: McpRegistration): EnvRegistration {
  return mcpRegistration({
    id: entry.id,
    description: entry.description,
    server: serverSpec(entry),
    reset: entry.reset,
    taskFile: entry.taskFile,
    episodeRoot: path.join(userEnvDir(paths, entry.id), 'episodes'),
    limits: { timeoutMs: entry.timeoutMs, maxOutputChars: entry.maxOutputChars },
  });
}

/** An entry that cannot be used lists as unavailable, with the reason, instead of breaking the list. */
function unavailable(id: string, message: string): EnvRegistration {
  return { id, description: `unavailable: ${message}`, track: 'mcp', options: [], unavailable: message, create: () => Promise.reject(new Error(message)) };
}

/** What this thread registered last, per home, so that loading again only re-registers what changed. */
const loaded = new Map<string, Map<string, string>>();

/**
 * Register every saved environment in this thread's registry (engine start, each compute job).
 * Unchanged entries keep their built instance; removed ones are unregistered.
 */
export async function loadUserEnvs(paths: HomePaths): Promise<{ ids: string[]; problems: UserEnvProblem[] }> {
  const { entries, problems } = readUserEnvs(paths);
  const before = loaded.get(paths.home) ?? new Map<string, string>();
  const now = new Map<string, string>();
  // Every registry change happens before the first await, so an engine that does not wait for this
  // (its start is synchronous) already lists every environment; the promises only stop old servers.
  const stopping: Array<Promise<unknown>> = [];
  for (const entry of entries) {
    if (isBuiltinEnv(entry.id)) {
      problems.push({ id: entry.id, message: `"${entry.id}" is a built-in environment; the saved entry is ignored` });
      continue;
    }
    const stamp = JSON.stringify(entry);
    now.set(entry.id, stamp);
    if (before.get(entry.id) !== stamp) stopping.push(registerEnv(registrationFor(paths, entry)));
  }
  for (const problem of problems) {
    if (problem.id === null || isBuiltinEnv(problem.id) || now.has(problem.id)) continue;
    const stamp = `!${problem.message}`;
    now.set(problem.id, stamp);
    if (before.get(problem.id) !== stamp) stopping.push(registerEnv(unavailable(problem.id, problem.message)));
  }
  for (const id of before.keys()) if (!now.has(id)) stopping.push(unregisterEnv(id));
  loaded.set(paths.home, now);
  await Promise.all(stopping);
  return { ids: [...now.keys()], problems };
}

/**
 * Change the stored items and write the file whole (atomic). Items this version cannot read stay as
 * they were; a file that cannot be read at all is kept aside first, never overwritten.
 */
function updateStoredItems(paths: HomePaths, change: (items: unknown[]) => unknown[]): void {
  const file = userEnvsFile(paths);
  const { items, corrupt } = readStoredItems(paths);
  if (corrupt) {
    const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    fs.renameSync(file, aside);
    console.error(`[engine] ${corrupt}: kept as ${aside}, and a new ${USER_ENVS_FILE} started`);
  }
  writeFileAtomicSync(file, `${JSON.stringify(change(items), null, 2)}\n`);
}

const itemId = (raw: unknown): unknown => (raw && typeof raw === 'object' ? (raw as { id?: unknown }).id : undefined);

function userFile(p: string, what: string, maxBytes: number, roots: readonly string[] | undefined): string {
  try {
    return checkUserFile(p, { what, maxBytes, roots });
  } catch (error) {
    if (error instanceof UserPathError) throw new ContractError('invalid_input', error.message);
    throw error;
  }
}

/**
 * Add an environment: copy its files into the home, connect, list its tools and check the task file
 * against them before saving, so a bad command or task file is reported now, in the server's own words.
 * `roots`: where the named files may lie (the data home for requests from the window; anywhere for the CLI).
 */
export async function addUserEnv(paths: HomePaths, input: EnvsAddMcpInput, roots?: readonly string[]): Promise<McpRegistration> {
  if (isBuiltinEnv(input.id)) throw new ContractError('conflict', `"${input.id}" is a built-in environment; pick another id`);
  const { entries, problems } = readUserEnvs(paths);
  if (entries.some((e) => e.id === input.id) || problems.some((p) => p.id === input.id)) {
    throw new ContractError('conflict', `an MCP environment "${input.id}" already exists (envace envs remove ${input.id} first)`);
  }
  const taskFile = userFile(input.taskFile, 'the task file', MAX_TASK_FILE_CHARS, roots);
  const reset = input.reset ?? defaultReset(input.server);
  const seeds = reset.kind === 'restart' ? reset.seedFiles.map((f) => userFile(f, 'a seed file', MAX_SEED_BYTES, roots)) : [];
  const dir = userEnvDir(paths, input.id);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'seed'), { recursive: true });
  const entry: McpRegistration = {
    ...input,
    server: 'command' in input.server && input.server.cwd !== undefined && !input.server.cwd.includes('{episode_dir}') ? { ...input.server, cwd: path.resolve(input.server.cwd) } : input.server,
    taskFile: path.join(dir, 'tasks.jsonl'),
    reset: reset.kind === 'restart' ? { kind: 'restart', seedFiles: seeds.map((f) => path.join(dir, 'seed', path.basename(f))) } : reset,
  };
  try {
    if (new Set(seeds.map((f) => path.basename(f))).size !== seeds.length) throw new ContractError('invalid_input', 'two seed files share a name; each is copied into {episode_dir} under its own name');
    fs.copyFileSync(taskFile, entry.taskFile);
    seeds.forEach((f) => fs.copyFileSync(f, path.join(dir, 'seed', path.basename(f))));
    readTaskFile(entry.taskFile, entry.id);
    await registerEnv(registrationFor(paths, entry));
    await getEnv(entry.id);
  } catch (error) {
    await unregisterEnv(entry.id);
    fs.rmSync(dir, { recursive: true, force: true });
    if (error instanceof ContractError) throw error;
    throw new ContractError('invalid_input', `the MCP environment could not start: ${(error as Error).message}`);
  }
  updateStoredItems(paths, (items) => [...items, entry]);
  loaded.get(paths.home)?.set(entry.id, JSON.stringify(entry));
  return entry;
}

/** Remove an environment, its copied files and its episode folders; its servers are stopped. */
export async function removeUserEnv(paths: HomePaths, id: string): Promise<void> {
  if (isBuiltinEnv(id)) throw new ContractError('conflict', `"${id}" is a built-in environment and cannot be removed`);
  const { entries, problems } = readUserEnvs(paths);
  const kept = entries.filter((e) => e.id !== id);
  if (kept.length === entries.length && !problems.some((p) => p.id === id)) throw new ContractError('not_found', `no MCP environment "${id}"`);
  updateStoredItems(paths, (items) => items.filter((raw) => itemId(raw) !== id));
  await unregisterEnv(id);
  loaded.get(paths.home)?.delete(id);
  // An entry whose id is no folder name (a hand-edited file) never had a folder: only the entry goes.
  if (folderNameProblem(id, ID_WHAT) === undefined) fs.rmSync(userEnvDir(paths, id), { recursive: true, force: true });
}

/**
 * What killed processes left under `<home>/mcp/`, tidied by the home's next owner: the folder of a
 * registration killed before it was saved (its copies can be tens of MB), and episode folders of
 * processes that are gone. Nothing is touched while the registry cannot be read (its entries are
 * unknown, so every folder may be one of theirs). Returns what was removed.
 */
export function tidyUserEnvLeftovers(paths: HomePaths): { folders: string[]; episodes: number } {
  const root = userEnvsRoot(paths);
  const { items, corrupt } = readStoredItems(paths);
  if (corrupt || setAsideCopies(paths).length > 0 || !fs.existsSync(root)) return { folders: [], episodes: 0 };
  const registered = new Set(items.map(itemId).filter((id): id is string => typeof id === 'string'));
  const folders: string[] = [];
  let episodes = 0;
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(root, entry.name);
    if (registered.has(entry.name)) episodes += tidyDeadEpisodes(path.join(dir, 'episodes'));
    else {
      fs.rmSync(dir, { recursive: true, force: true });
      folders.push(entry.name);
    }
  }
  return { folders, episodes };
}
