import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ContractError, GpuSetupInput } from '../../../electron/contract';
import { installerInvocation, ortPackageRoot, realGpuSetupDeps, type GpuSetupDeps } from '../../../electron/engine/system/gpu-setup';
import { systemHandlersWith } from '../../../electron/engine/handlers/system';

const ctx = { transport: 'in-process' as const };
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function handler(deps: GpuSetupDeps) {
  // system.gpuSetup uses no engine service; system.info (which does) is not called here.
  return systemHandlersWith(deps)({} as never)['system.gpuSetup'];
}

function fakeRoot(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-gpu-ort-'));
  temps.push(dir);
  return dir;
}

describe('system.gpuSetup', () => {
  it('installs only when asked to by name: an empty request is refused', () => {
    expect(GpuSetupInput.safeParse({}).success).toBe(false);
    expect(GpuSetupInput.parse({ action: 'check' })).toEqual({ action: 'check' });
  });

  it('without a GPU answers not_available with the one line, and starts nothing', async () => {
    const runInstaller = vi.fn(async () => 0);
    const probe = vi.fn(async () => []);
    const call = handler({ detect: () => ({ ok: false, message: 'no NVIDIA GPU found: nvidia-smi is not on PATH' }), ortRoot: ortPackageRoot, runInstaller, probe });
    const error = await Promise.resolve(call({ action: 'install' }, ctx)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect(error).toMatchObject({ code: 'not_available', message: 'no NVIDIA GPU found: nvidia-smi is not on PATH; nothing was installed' });
    expect(runInstaller).not.toHaveBeenCalled();
    expect(probe).not.toHaveBeenCalled();
  });

  it("with a GPU returns the installer's lines and the providers as the contract names them", async () => {
    const call = handler({
      detect: () => ({ ok: true, message: 'found NVIDIA H200 (driver 570.86.15) via nvidia-smi' }),
      ortRoot: fakeRoot,
      runInstaller: async (_inv, onLine) => (onLine('Downloading …nupkg'), onLine('Extracting …cuda.so'), 0),
      probe: async () => [
        { provider: 'cpu', available: true },
        { provider: 'cuda', available: false, detail: 'Failed to load shared library: the CUDA provider needs libcudnn.so.9 (…)' },
      ],
    });
    expect(await call({ action: 'install' }, ctx)).toMatchObject({
      status: 'installed',
      exitCode: 0,
      output: ['Downloading …nupkg', 'Extracting …cuda.so'],
      providers: [
        { name: 'cpu', available: true, detail: 'loaded' },
        { name: 'cuda', available: false, detail: 'Failed to load shared library: the CUDA provider needs libcudnn.so.9 (…)' },
      ],
    });
  });

  it('a second setup while one runs is a conflict', async () => {
    let finish!: (code: number) => void;
    const call = handler({ detect: () => ({ ok: true, message: 'gpu' }), ortRoot: fakeRoot, runInstaller: () => new Promise((r) => (finish = r)), probe: async () => [] });
    const first = call({ action: 'install' }, ctx);
    await vi.waitFor(() => expect(finish).toBeTypeOf('function'));
    await expect(call({ action: 'install' }, ctx)).rejects.toMatchObject({ code: 'conflict' });
    finish(1);
    expect(await first).toMatchObject({ status: 'failed', exitCode: 1 });
  });
});

describe('the installer process', () => {
  it("is onnxruntime-node's script/install.js with the force flag and the environment switch", () => {
    const inv = installerInvocation('/opt/ort');
    expect(inv).toMatchObject({ command: process.execPath, args: ['/opt/ort/script/install.js', '--onnxruntime-node-install'], cwd: '/opt/ort' });
    expect(inv.env.ONNXRUNTIME_NODE_INSTALL).toBe('true');
    // The script it names exists in the installed package and reads that flag and variable.
    const script = fs.readFileSync(path.join(ortPackageRoot(), 'script', 'install-utils.js'), 'utf8');
    expect(script).toContain("process.env.ONNXRUNTIME_NODE_INSTALL");
    expect(script).toContain("'--onnxruntime-node-install'");
  });

  it('streams stdout and stderr lines and returns the exit code (a stand-in script, not the installer)', async () => {
    const lines: string[] = [];
    const code = await realGpuSetupDeps.runInstaller(
      { command: process.execPath, args: ['-e', 'console.log("one"); console.error("two"); setTimeout(() => { console.log("three"); process.exit(3); }, 50)'], env: process.env, cwd: os.tmpdir() },
      (l) => lines.push(l),
    );
    expect(code).toBe(3);
    expect(lines.sort()).toEqual(['one', 'three', 'two']);
  });
});
