// `envace serve` with a user MCP server registered and running (shared state, so its process stays up)
// stops on SIGTERM within five seconds and leaves no server process behind.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { tempHome } from '../helpers/engine';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/mcp-memory');
const memoryServer = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');
const bin = path.resolve(import.meta.dirname, '../../bin/envace.mjs');
const home = tempHome('envace-serve-term-');
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('envace serve with a registered MCP server', () => {
  it('exits on SIGTERM within 5 s and stops the server it started', async () => {
    const pidFile = path.join(home, 'server.pid');
    // The shim records its pid, then runs the real server: what `serve` must not leave behind.
    const shim = path.join(home, 'pid-shim.mjs');
    fs.writeFileSync(shim, `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); await import(${JSON.stringify(memoryServer)});`);
    fs.copyFileSync(path.join(FIXTURES, 'tasks.jsonl'), path.join(home, 'tasks.jsonl'));
    const entry = { id: 'memory', server: { command: process.execPath, args: [shim], env: { MEMORY_FILE_PATH: path.join(home, 'memory.jsonl') } }, taskFile: path.join(home, 'tasks.jsonl'), reset: { kind: 'none', sharedState: true } };
    fs.writeFileSync(path.join(home, 'mcp-servers.json'), JSON.stringify([entry]));

    const serve = spawn(process.execPath, [bin, 'serve', '--home', home, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    serve.stderr.on('data', (d: Buffer) => (out += String(d)));
    const url = await new Promise<string>((resolve, reject) => {
      serve.stdout.on('data', (d: Buffer) => {
        out += String(d);
        const m = /at (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      serve.once('exit', () => reject(new Error(`serve exited early:\n${out}`)));
    });
    const { port, searchParams } = new URL(url);
    // One tool call through the contract starts the shared server and leaves it running.
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api?token=${searchParams.get('token')}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const answer = new Promise<{ result: { ok: boolean; value?: { observation: string } } }>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))));
    ws.send(JSON.stringify({ type: 'request', id: 1, method: 'envs.call', input: { env: 'memory', tool: 'open_nodes', arguments: { names: ['Ane'] } } }));
    expect((await answer).result.ok).toBe(true);
    ws.close();
    const serverPid = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(alive(serverPid)).toBe(true);

    const started = Date.now();
    serve.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => serve.once('exit', (c) => resolve(c)));
    expect(Date.now() - started, out).toBeLessThan(5_000);
    expect(code, out).toBe(0);
    expect(alive(serverPid)).toBe(false);
  });
});
