import fs from 'node:fs';
import path from 'node:path';
import { ContractError, EnvsAddMcpInput } from '../contract';
import { readBoundedJsonFile } from '../../native-models/io/bounded-file';
import { mcpRegistration } from './envs/mcp/env';
import { MAX_TASK_FILE_CHARS } from './envs/mcp/taskfile';
import { getEnv, isBuiltinEnv, registerEnv, unregisterEnv } from './envs/registry';
import type { HomePaths } from './home';
import { UserPathError, checkUserFile } from './user-paths';

/** The user's MCP environments live in one JSON file in the data home, re-registered at start. */
export function mcpServersFile(paths: HomePaths): string {
  return path.join(paths.home, 'mcp-servers.json');
}

/** A list of server entries: a few KB each, a few levels deep. */
const SERVERS_FILE_BOUNDS = { maxBytes: 8 * 1024 * 1024, maxDepth: 16 };

function register(entry: EnvsAddMcpInput): void {
  const server = 'command' in entry.server ? { transport: 'stdio' as const, command: entry.server.command, args: entry.server.args } : { transport: 'http' as const, url: entry.server.url };
  registerEnv(mcpRegistration({ id: entry.id, description: entry.description, server, taskFile: entry.taskFile, limits: { timeoutMs: entry.timeoutMs, maxOutputChars: entry.maxOutputChars } }));
}

function readAll(paths: HomePaths): EnvsAddMcpInput[] {
  const file = mcpServersFile(paths);
  if (!fs.existsSync(file)) return [];
  // Bounded: the file is the user's to edit, and a broken one must not take the engine down at start.
  const parsed = EnvsAddMcpInput.array().safeParse(readBoundedJsonFile(file, SERVERS_FILE_BOUNDS));
  return parsed.success ? parsed.data : [];
}

/** Register every saved server (at engine start). A broken entry is skipped, not fatal. */
export function loadMcpServers(paths: HomePaths): string[] {
  let saved: EnvsAddMcpInput[];
  try {
    saved = readAll(paths);
  } catch {
    // Unreadable or malformed: no saved servers, as for entries that fail the schema (addMcpServer reports it).
    return [];
  }
  const entries = saved.filter((e) => !isBuiltinEnv(e.id));
  entries.forEach(register);
  return entries.map((e) => e.id);
}

/**
 * Add a server: connect, list its tools and check the task file against them before saving,
 * so a bad command or task file is reported now, with the server's own words.
 */
export async function addMcpServer(paths: HomePaths, entry: EnvsAddMcpInput): Promise<void> {
  if (isBuiltinEnv(entry.id)) throw new ContractError('conflict', `"${entry.id}" is a built-in environment; pick another id`);
  const existing = readAll(paths);
  if (existing.some((e) => e.id === entry.id)) throw new ContractError('conflict', `an MCP environment "${entry.id}" already exists`);
  try {
    checkUserFile(entry.taskFile, { what: 'the task file', maxBytes: MAX_TASK_FILE_CHARS });
  } catch (error) {
    if (error instanceof UserPathError) throw new ContractError('invalid_input', error.message);
    throw error;
  }
  register(entry);
  try {
    await getEnv(entry.id);
  } catch (error) {
    unregisterEnv(entry.id);
    throw new ContractError('invalid_input', `the MCP environment could not start: ${(error as Error).message}`);
  }
  const file = mcpServersFile(paths);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify([...existing, entry], null, 2));
  fs.renameSync(tmp, file);
}
