// A registered server that never answers initialize is given up on within the registration's
// timeout (`--timeout-ms`), under every reset policy: start-up used to wait a fixed 15 s.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpReset } from '../../../../../electron/contract';
import { MIN_STARTUP_MS, startupTimeoutMs } from '../../../../../electron/engine/envs/mcp/connection';
import { McpToolEnv } from '../../../../../electron/engine/envs/mcp/env';
import { patience } from '../../../../helpers/patience';

let dir: string;
let silent: string;
let taskFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'envace-mcp-startup-'));
  silent = join(dir, 'silent-server.mjs');
  // Reads its stdin and never says a word; ignores SIGTERM too, as a wedged server may.
  await writeFile(silent, "process.on('SIGTERM', () => {}); process.stdin.resume(); setInterval(() => {}, 60_000);\n");
  taskFile = join(dir, 'tasks.jsonl');
  await writeFile(taskFile, JSON.stringify({ id: 't1', instruction: 'Say hi.', checklist: [{ kind: 'answer', weight: 1, expected: ['hi'] }], gold: { calls: [], answer: 'hi' } }) + '\n');
});

afterAll(() => rm(dir, { recursive: true, force: true }));

const policies: McpReset[] = [{ kind: 'restart', seedFiles: [] }, { kind: 'tool', tool: 'reset', arguments: {} }, { kind: 'none', sharedState: true }];

describe('MCP server start-up honours the configured timeout', () => {
  it.each(policies)("reset $kind: 3,000 ms asked (as the fault probe did), refused within a few seconds with the figure in the reason", async (reset) => {
    const started = Date.now();
    const built = McpToolEnv.fromTaskFile({ id: `silent-${reset.kind}`, server: { transport: 'stdio', command: process.execPath, args: [silent] }, reset, taskFile, episodeRoot: join(dir, 'episodes'), limits: { timeoutMs: 3_000 } });
    await expect(built).rejects.toThrow(/did not answer initialize within 3000 ms; it was stopped/);
    // The reason names the figure asked; and it came before the fixed 15 s start-up used to wait.
    expect(Date.now() - started).toBeLessThan(15_000);
  }, patience(30_000));
});

describe('the start-up time allowed', () => {
  it('is the configured timeout, and never under MIN_STARTUP_MS (a short tool-call timeout must not fail the spawn itself)', () => {
    expect(startupTimeoutMs({ timeoutMs: 3_000, maxOutputChars: 1 })).toBe(3_000);
    expect(startupTimeoutMs({ timeoutMs: 60_000, maxOutputChars: 1 })).toBe(60_000);
    expect(startupTimeoutMs({ timeoutMs: 400, maxOutputChars: 1 })).toBe(MIN_STARTUP_MS);
  });
});
