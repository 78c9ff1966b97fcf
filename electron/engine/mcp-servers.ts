import fs from 'node:fs';
import path from 'node:path';
import { ContractError, EnvsAddMcpInput } from '../contract';
import { mcpRegistration } from './envs/mcp/env';
import { getEnv, isBuiltinEnv, registerEnv, unregisterEnv } from './envs/registry';
import type { HomePaths } from './home';

/** The user's MCP environments live in one JSON file in the data home, re-registered at start. */
export function mcpServersFile(paths: HomePaths): string {
  return path.join(paths.home, 'mcp-servers.json');
}

function register(entry: EnvsAddMcpInput): void {
  const server = 'command' in entry.server ? { transport: 'stdio' as const, command: entry.server.command, args: entry.server.args } : { transport: 'http' as const, url: entry.server.url };
  registerEnv(mcpRegistration({ id: entry.id, description: entry.description, server, taskFile: entry.taskFile, limits: { timeoutMs: entry.timeoutMs, maxOutputChars: entry.maxOutputChars } }));
}

function readAll(paths: HomePaths): EnvsAddMcpInput[] {
  const file = mcpServersFile(paths);
  if (!fs.existsSync(file)) return [];
  const parsed = EnvsAddMcpInput.array().safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  return parsed.success ? parsed.data : [];
}

/** Register every saved server (at engine start). A broken entry is skipped, not fatal. */
export function loadMcpServers(paths: HomePaths): string[] {
  const entries = readAll(paths).filter((e) => !isBuiltinEnv(e.id));
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
  if (!fs.existsSync(entry.taskFile)) throw new ContractError('invalid_input', `task file ${entry.taskFile} does not exist`);
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
