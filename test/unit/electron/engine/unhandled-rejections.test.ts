import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tempHome } from '../../../helpers/engine';

const run = promisify(execFile);
const dir = tempHome('envace-unhandled-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const modulePath = path.resolve(import.meta.dirname, '../../../../electron/engine/system/unhandled-rejections.ts');

/** A process that rejects a promise nobody awaits, then reports whether it is still running. */
async function child(install: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = path.join(dir, `child-${install}.mts`);
  fs.writeFileSync(
    script,
    [
      `import { logUnhandledRejections } from ${JSON.stringify(modulePath)};`,
      install ? `logUnhandledRejections('engine'); logUnhandledRejections('engine');` : '',
      `void Promise.reject(new RangeError('Maximum call stack size exceeded'));`,
      `setTimeout(() => console.log('still running'), 50);`,
    ].join('\n'),
  );
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', script]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('logUnhandledRejections', () => {
  it('without it Node exits on an unhandled rejection (the failure it guards against)', async () => {
    const result = await child(false);
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toContain('still running');
  });

  it('logs the rejection once, with its stack, and the process keeps running', async () => {
    const result = await child(true);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('still running');
    expect(result.stderr.match(/\[engine\] unhandled promise rejection/g)).toHaveLength(1);
    expect(result.stderr).toContain('RangeError: Maximum call stack size exceeded');
  });
});
