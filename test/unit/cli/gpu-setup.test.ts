import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerGpu } from '../../../electron/cli/commands/gpu';
import { reportError } from '../../../electron/cli/output';
import { cudaLibraryPath, detectGpu, ortPackageRoot, realGpuSetupDeps, type DetectionHost, type GpuSetupDeps } from '../../../electron/engine/system/gpu-setup';
import { runEnvace } from '../../helpers/cli';

/** Every file under onnxruntime-node with its size and mtime: any install or rewrite changes it. */
function listing(root: string): string[] {
  const rows: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const st = fs.lstatSync(full);
      rows.push(`${path.relative(root, full)} ${st.size} ${st.mtimeMs}`);
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(root);
  return rows.sort();
}

/** Run `envace gpu setup …` in this process over the given stand-ins; stdout, stderr and the exit code. */
async function setup(deps: GpuSetupDeps, ...args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => (stdout.push(String(s)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (stderr.push(String(s)), true));
  const program = new Command('envace').exitOverride();
  registerGpu(program, deps);
  let code = 0;
  try {
    await program.parseAsync(['node', 'envace', 'gpu', 'setup', ...args]);
  } catch (error) {
    code = reportError(error, (s) => stderr.push(s));
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return { code, stdout: stdout.join(''), stderr: stderr.join('') };
}

const noGpu = 'no NVIDIA GPU found: nvidia-smi is not on PATH and /proc/driver/nvidia/version does not exist';

function host(over: Partial<DetectionHost>): DetectionHost {
  return {
    platform: 'linux',
    arch: 'x64',
    run: () => ({ status: null, stdout: '', stderr: '', error: Object.assign(new Error('spawnSync nvidia-smi ENOENT'), { code: 'ENOENT' }) }),
    readFile: () => null,
    cudaPlatforms: () => ['linux/x64'],
    ...over,
  };
}

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A stand-in onnxruntime-node folder, so an "installed" library never lands in the real one. */
function fakeOrtRoot(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-gpu-ort-'));
  temps.push(dir);
  return dir;
}

describe('envace gpu setup without a GPU', () => {
  it('says what it looked for in one line, exits 4, spawns no installer and leaves onnxruntime-node as it was', async () => {
    const root = ortPackageRoot();
    const before = listing(root);
    const runInstaller = vi.fn(async () => 0);
    const probe = vi.fn(async () => []);
    const r = await setup({ detect: () => detectGpu(host({})), ortRoot: () => root, runInstaller, probe });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(`envace: ${noGpu}; nothing was installed\n`);
    expect(r.stdout).toBe('');
    expect(runInstaller).not.toHaveBeenCalled();
    expect(probe).not.toHaveBeenCalled();
    expect(listing(root)).toEqual(before);
  });

  // This machine's own detection; on a machine with a GPU the case above covers the behaviour.
  it.skipIf(detectGpu().ok)('with this machine\'s real detection: exit 4, installer never spawned, nothing changed', async () => {
    const root = ortPackageRoot();
    const before = listing(root);
    const runInstaller = vi.fn(async () => 0);
    const r = await setup({ ...realGpuSetupDeps, runInstaller });
    expect(r.code).toBe(4);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^envace: no (NVIDIA GPU found|CUDA provider for).*; nothing was installed\n$/);
    expect(runInstaller).not.toHaveBeenCalled();
    expect(listing(root)).toEqual(before);
  });

  it.skipIf(detectGpu().ok)('the real command exits 4 with the same one line', async () => {
    const root = ortPackageRoot();
    const before = listing(root);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-gpu-home-'));
    temps.push(home);
    const r = await runEnvace(home, 'gpu', 'setup');
    expect(r.code).toBe(4);
    expect(r.stderr.trim().split('\n').filter((l) => l.startsWith('envace:'))).toHaveLength(1);
    expect(r.stderr).toContain('nothing');
    expect(listing(root)).toEqual(before);
  });
});

describe('detectGpu', () => {
  it('names the platform and why on macOS, Windows and Linux arm64, without looking for a GPU', () => {
    const run = vi.fn();
    expect(detectGpu(host({ platform: 'darwin', arch: 'arm64', run })).message).toMatch(/^no CUDA provider for darwin\/arm64: macOS has no NVIDIA CUDA drivers/);
    expect(detectGpu(host({ platform: 'win32', arch: 'x64', run })).message).toMatch(/^no CUDA provider for win32\/x64: .*no CUDA provider for Windows/);
    expect(detectGpu(host({ platform: 'linux', arch: 'arm64', run })).message).toMatch(/only for linux\/x64/);
    expect(run).not.toHaveBeenCalled();
  });

  it('finds a GPU through nvidia-smi, or the driver through /proc when nvidia-smi fails', () => {
    const smi = detectGpu(host({ run: () => ({ status: 0, stdout: 'NVIDIA H200, 570.86.15\n', stderr: '' }) }));
    expect(smi).toEqual({ ok: true, message: 'found NVIDIA H200 (driver 570.86.15) via nvidia-smi' });
    const proc = detectGpu(host({ run: () => ({ status: 9, stdout: '', stderr: 'NVIDIA-SMI has failed\n' }), readFile: () => 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15\nGCC version: 12\n' }));
    expect(proc.ok).toBe(true);
    expect(proc.message).toContain('NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15');
  });

  it('says what failed when nvidia-smi runs but finds nothing', () => {
    const d = detectGpu(host({ run: () => ({ status: 9, stdout: '', stderr: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\nMore\n" }) }));
    expect(d.ok).toBe(false);
    expect(d.message).toBe("no NVIDIA GPU found: nvidia-smi exited 9 (NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.) and /proc/driver/nvidia/version does not exist");
  });
});

describe('envace gpu setup with a GPU (stand-in installer)', () => {
  const gpu = () => ({ ok: true, message: 'found NVIDIA H200 (driver 570.86.15) via nvidia-smi' });

  it("runs onnxruntime-node's own installer with its force flag, streams its lines and says which providers load after", async () => {
    const root = fakeOrtRoot();
    const runInstaller = vi.fn(async (_inv: Parameters<GpuSetupDeps['runInstaller']>[0], onLine: (l: string) => void) => {
      onLine('Downloading https://api.nuget.org/…/microsoft.ml.onnxruntime.gpu.linux.1.30.0.nupkg');
      fs.mkdirSync(path.dirname(cudaLibraryPath(root)), { recursive: true });
      fs.writeFileSync(cudaLibraryPath(root), '');
      return 0;
    });
    const probe = vi.fn(async () => [
      { provider: 'cpu' as const, available: true },
      { provider: 'cuda' as const, available: true },
      { provider: 'webgpu' as const, available: false, detail: 'Failed to get a WebGPU adapter: No supported adapters' },
    ]);
    const r = await setup({ detect: gpu, ortRoot: () => root, runInstaller, probe });
    expect(r.code).toBe(0);
    const [invocation] = runInstaller.mock.calls[0];
    expect(invocation.command).toBe(process.execPath);
    expect(invocation.args).toEqual([path.join(root, 'script', 'install.js'), '--onnxruntime-node-install']);
    expect(invocation.env.ONNXRUNTIME_NODE_INSTALL).toBe('true');
    expect(r.stdout).toContain('  | Downloading https://api.nuget.org/');
    expect(r.stdout).toMatch(/^ {2}cuda +loads$/m);
    expect(r.stdout).toMatch(/^ {2}webgpu +does not load: Failed to get a WebGPU adapter: No supported adapters$/m);
    expect(probe).toHaveBeenCalledWith(root);
  });

  it('--dry-run prints the command and runs nothing', async () => {
    const runInstaller = vi.fn(async () => 0);
    const r = await setup({ detect: gpu, ortRoot: fakeOrtRoot, runInstaller, probe: vi.fn() }, '--dry-run', '--json');
    expect(r.code).toBe(0);
    expect(runInstaller).not.toHaveBeenCalled();
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toMatchObject({ status: 'dry_run', command: expect.stringContaining('--onnxruntime-node-install') });
  });

  it('a failing installer exits 1; installed but CUDA not loading exits 4 with the reason', async () => {
    const failed = await setup({ detect: gpu, ortRoot: fakeOrtRoot, runInstaller: async () => 3, probe: vi.fn() });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("installer exited with code 3");
    const reason = 'Failed to load shared library: the CUDA provider needs libcudnn.so.9 (the CUDA 12 runtime and cuDNN 9) on the library path';
    const noLoad = await setup({ detect: gpu, ortRoot: fakeOrtRoot, runInstaller: async () => 0, probe: async () => [{ provider: 'cuda', available: false, detail: reason }] });
    expect(noLoad.code).toBe(4);
    expect(noLoad.stderr).toBe(`envace: the CUDA provider is installed but does not load: ${reason}\n`);
  });
});
