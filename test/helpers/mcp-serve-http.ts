// `envace mcp serve` over HTTP for tests that reach it from outside: started with `--port 0 --json`, its URL
// (token included) read from the JSON line it prints once it listens.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const bin = path.resolve(import.meta.dirname, '../../bin/envace.mjs');

export interface HttpServer {
  proc: ChildProcess;
  url: string;
}

/** `envace <args> --port 0 --json` (args from `mcp serve` on), resolved with its URL; rejects if it exits first. */
export function mcpServeHttp(args: readonly string[]): Promise<HttpServer> {
  const proc = spawn(process.execPath, [bin, ...args, '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += String(d);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ proc, url: (JSON.parse(line) as { url: string }).url });
    });
    proc.stderr!.on('data', (d: Buffer) => (out += String(d)));
    proc.once('exit', () => reject(new Error(`mcp serve exited early:\n${out}`)));
  });
}
