// Start-up stays light: ONNX Runtime is loaded by the compute worker (and handlers that need the
// model stack) on first use, never by importing the engine host on its main thread.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

describe('engine start-up', () => {
  it('importing the engine host loads no onnxruntime-node module', () => {
    const script = path.join(import.meta.dirname, '../fixtures/host-import-modules.ts');
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual({ onnxruntimeModules: 0 });
  });

  it('a pre-flight (which reports the device a run will use) probes providers in the worker, not on the main thread', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-startup-'));
    try {
      const script = path.join(import.meta.dirname, '../fixtures/host-import-modules.ts');
      const r = spawnSync(process.execPath, ['--import', 'tsx', script, '--preflight', home], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual({ onnxruntimeModules: 0 });
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
