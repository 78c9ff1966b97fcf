// The stdio transport behind McpConnection runs a local server as the leader of its own process
// group, so that what the server started is stopped with it: on close, even a helper that holds
// none of the server's pipes; and when the engine's process exits with the server still open.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serverProcessTransport } from '../../../../../electron/engine/envs/mcp/server-process';
import { patience } from '../../../../helpers/patience';
import { processGone } from '../../../../helpers/process-gone';

const found: number[] = [];

afterEach(() => {
  // A failed test must not leave sleeps behind.
  for (const pid of found.splice(0)) if (!processGone(pid)) process.kill(pid, 'SIGKILL');
});

async function expectGone(pid: number): Promise<void> {
  await expect.poll(() => processGone(pid), { timeout: patience(10_000), interval: 20 }).toBe(true);
}

describe.skipIf(process.platform === 'win32')('serverProcessTransport (POSIX: a process group per server)', () => {
  it('close stops a helper the server started with its own stdio, after the server itself exits on EOF', async () => {
    // `cat` stands for a server that exits on EOF; the sleep, a helper it left running, shares no pipe.
    const transport = serverProcessTransport({ command: 'sh', args: ['-c', 'sleep 60 </dev/null >/dev/null 2>&1 & echo $! >&2; exec cat'], env: { PATH: process.env.PATH ?? '' } });
    const helperPid = new Promise<number>((done) => transport.stderr?.on('data', (chunk: Buffer) => done(Number(String(chunk).trim()))));
    let closed = false;
    transport.onclose = () => (closed = true);
    await transport.start();
    const helper = await helperPid;
    found.push(helper);
    expect(processGone(helper)).toBe(false);

    await transport.close();
    expect(closed).toBe(true);
    await expectGone(transport.pid!);
    await expectGone(helper);
  });

  it("a server still open when the engine's process exits is stopped with it", async () => {
    // An engine that exits (process.exit) without closing its server: `sleep` ignores the EOF it gets.
    const engine = `
      import { serverProcessTransport } from ${JSON.stringify(resolve('electron/engine/envs/mcp/server-process.ts'))};
      const transport = serverProcessTransport({ command: 'sleep', args: ['60'], env: { PATH: process.env.PATH ?? '' } });
      await transport.start();
      process.stdout.write(String(transport.pid), () => process.exit(0));`;
    const stdout = await new Promise<string>((done, fail) =>
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', engine], (error, out) => (error ? fail(error) : done(out))),
    );
    const server = Number(stdout);
    expect(server).toBeGreaterThan(0);
    found.push(server);
    await expectGone(server);
  });
});
