import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { detectGpu } from '../../electron/engine/system/gpu-setup';
import { patience } from '../helpers/patience';

const run = promisify(execFile);
const script = path.join(import.meta.dirname, 'run.sh');

async function checks(...args: string[]) {
  try {
    const { stdout } = await run(script, args, { timeout: patience(300_000) });
    return { code: 0, stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, stdout: e.stdout };
  }
}

// The GPU checks are a script (gpu-checks.ts, not *.test.ts): they need a GPU and minutes. This
// file only keeps them runnable: present, skipping with a reason here, and correct as a script.
describe('test/gpu checks', () => {
  it('exist as a script vitest does not collect', () => {
    expect(fs.statSync(script).mode & 0o111).not.toBe(0);
    expect(fs.existsSync(path.join(import.meta.dirname, 'gpu-checks.ts'))).toBe(true);
  });

  it.skipIf(detectGpu().ok)('skip here, saying why, with exit 0', async () => {
    const r = await checks();
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`gpu checks skipped: ${detectGpu().message}`);
  });

  // CPU against CPU: the comparisons, tolerances and figures run end to end on any machine.
  it('pass comparing the CPU with itself', async () => {
    const r = await checks('--device', 'cpu', '--presets', 'nano', '--steps', '1');
    expect(r.stdout).toContain('ok   train step 1: loss cpu');
    expect(r.stdout).toContain("ok   decode: cpu's generated log-probs match");
    expect(r.stdout).toContain('train tok/s cpu again');
    expect(r.stdout.trim().split('\n').at(-1)).toBe('gpu checks: all passed');
    expect(r.code).toBe(0);
  });
});
