// Switching an NVIDIA GPU on: onnxruntime-node's CUDA provider is not in its npm package (too large
// for the registry); its own installer downloads it, and our package.json turns that installer off
// at `npm ci` because it fails offline. `envace gpu setup` and `system.gpuSetup` run it on purpose,
// the way its script documents, after checking that a GPU and a supported platform are there.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Graph } from '../../../native-models/graph/builder';
import { toOnnxBytes } from '../../../native-models/graph/serialize';
import { providerReason } from '../../../native-models/runtime/provider-reason';
import type { ProviderReport } from '../../../native-models/runtime/session';

export interface GpuDetection {
  /** An NVIDIA GPU with a driver on a platform the installer has CUDA binaries for. */
  ok: boolean;
  /** One line: what was found, or what was looked for and not found. */
  message: string;
}

/** What detection reads from the machine; tests give their own. */
export interface DetectionHost {
  platform: NodeJS.Platform;
  arch: string;
  /** Runs a program; `error` when it could not start (ENOENT: not on PATH). */
  run(command: string, args: string[]): { status: number | null; stdout: string; stderr: string; error?: NodeJS.ErrnoException };
  readFile(file: string): string | null;
  /** `<platform>/<arch>` keys whose installer manifest includes CUDA binaries. */
  cudaPlatforms(): string[];
}

export type GpuSetupStatus = 'dry_run' | 'already_installed' | 'installed' | 'failed';

export interface GpuSetupResult {
  status: GpuSetupStatus;
  /** What detection found (the GPU and driver). */
  gpu: string;
  /** The installer command line, as a person would type it. */
  command: string;
  /** The installer's exit code; null when it did not run. */
  exitCode: number | null;
  /** The installer's output, in order (stdout and stderr interleaved as they came). */
  output: string[];
  /** Providers that load in a fresh process after the installer; empty on a dry run. */
  providers: ProviderReport[];
}

export interface GpuSetupDeps {
  detect: () => GpuDetection;
  /** onnxruntime-node's package folder. */
  ortRoot: () => string;
  runInstaller: (invocation: InstallerInvocation, onLine: (line: string) => void) => Promise<number>;
  /** Which providers load in a new process (this one's ORT has cached its answer). */
  probe: (ortRoot: string) => Promise<ProviderReport[]>;
}

export interface InstallerInvocation {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Thrown when there is nothing to set up here; the message is the one line to show. */
export class GpuNotAvailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GpuNotAvailable';
  }
}

const realHost: DetectionHost = {
  platform: process.platform,
  arch: process.arch,
  run(command, args) {
    const r = spawnSync(command, args, { encoding: 'utf8', timeout: 15_000 });
    return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error as NodeJS.ErrnoException | undefined };
  },
  readFile(file) {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      return null;
    }
  },
  cudaPlatforms() {
    // The installer's own table of what it can download where, so a later onnxruntime-node that
    // adds a platform is picked up without a change here.
    try {
      const metadata = createRequire(import.meta.url)(path.join(ortPackageRoot(), 'script', 'install-metadata.js')) as { requirements: Record<string, string[]> };
      return Object.entries(metadata.requirements)
        .filter(([, manifests]) => manifests.some((m) => m.startsWith('cuda')))
        .map(([key]) => key);
    } catch {
      return ['linux/x64'];
    }
  },
};

export function ortPackageRoot(): string {
  return path.dirname(createRequire(import.meta.url).resolve('onnxruntime-node/package.json'));
}

/** Whether setup can do anything here: the platform first (the installer's list), then an NVIDIA GPU and driver. */
export function detectGpu(host: DetectionHost = realHost): GpuDetection {
  const here = `${host.platform}/${host.arch}`;
  const supported = host.cudaPlatforms();
  if (!supported.includes(here)) {
    const only = supported.join(', ') || 'no platform';
    const why =
      host.platform === 'darwin'
        ? 'macOS has no NVIDIA CUDA drivers'
        : host.platform === 'win32'
          ? "onnxruntime-node's installer has no CUDA provider for Windows (its GPU providers there, DirectML and WebGPU, come bundled)"
          : `onnxruntime-node's installer has CUDA binaries only for ${only}`;
    return { ok: false, message: `no CUDA provider for ${here}: ${why} (WebGPU, where it loads, needs no setup: see \`envace info\`)` };
  }
  const smi = host.run('nvidia-smi', ['--query-gpu=name,driver_version', '--format=csv,noheader']);
  const gpus = smi.status === 0 ? smi.stdout.split('\n').map((l) => l.trim()).filter(Boolean) : [];
  if (gpus.length > 0) {
    const described = gpus.map((g) => {
      const [name, driver] = g.split(',').map((s) => s.trim());
      return driver ? `${name} (driver ${driver})` : name;
    });
    return { ok: true, message: `found ${described.join(', ')} via nvidia-smi` };
  }
  const proc = host.readFile('/proc/driver/nvidia/version');
  if (proc) return { ok: true, message: `found the NVIDIA driver (${proc.split('\n')[0].trim()}) in /proc/driver/nvidia/version` };
  const smiSaid = smi.error?.code === 'ENOENT' ? 'nvidia-smi is not on PATH' : smi.error ? `nvidia-smi did not run (${smi.error.message})` : `nvidia-smi exited ${smi.status}${smi.stderr.trim() ? ` (${smi.stderr.trim().split('\n')[0]})` : ''}`;
  return { ok: false, message: `no NVIDIA GPU found: ${smiSaid} and /proc/driver/nvidia/version does not exist` };
}

/**
 * The installer invocation. From onnxruntime-node 1.30's script/install.js and install-utils.js:
 * the bare flag `--onnxruntime-node-install` forces the download of the platform's manifest
 * (cuda12 on linux/x64) even when the files exist. Its `=cuda12` form parses to "not given" in
 * 1.30 and so would skip when run from an npm script. The environment variable is read before the
 * argument, so a user's `onnxruntime-node-install=skip` in .npmrc (exported by npm as
 * npm_config_onnxruntime_node_install) would win over the flag; ONNXRUNTIME_NODE_INSTALL is
 * checked first, so setting it makes the request stick.
 */
export function installerInvocation(ortRoot: string): InstallerInvocation {
  const env: NodeJS.ProcessEnv = { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'true' };
  // Under Electron the executable is Electron itself; this makes it behave as plain Node.
  if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
  return { command: process.execPath, args: [path.join(ortRoot, 'script', 'install.js'), '--onnxruntime-node-install'], env, cwd: ortRoot };
}

export function cudaLibraryPath(ortRoot: string, platform: string = process.platform, arch: string = process.arch): string {
  return path.join(ortRoot, 'bin', 'napi-v6', platform, arch, platform === 'win32' ? 'onnxruntime_providers_cuda.dll' : 'libonnxruntime_providers_cuda.so');
}

function runInstaller(invocation: InstallerInvocation, onLine: (line: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(invocation.command, invocation.args, { cwd: invocation.cwd, env: invocation.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let open = 2;
    let code: number | null = null;
    const done = () => {
      if (open === 0 && code !== null) resolve(code);
    };
    for (const stream of [child.stdout, child.stderr]) {
      const lines = createInterface({ input: stream });
      lines.on('line', onLine);
      lines.on('close', () => {
        open--;
        done();
      });
    }
    child.on('error', reject);
    child.on('close', (exit, signal) => {
      code = exit ?? (signal ? 128 : 1);
      done();
    });
  });
}

// A one-node model (Identity on a float [1]): enough for a provider to have to load.
function probeModel(): Uint8Array {
  const g = new Graph('provider_probe');
  g.output(g.op1('Identity', [g.input('x', 'float32', [1])]), 'y');
  return toOnnxBytes(g);
}

// Plain CommonJS so it runs under any Node (or Electron as Node) without a TypeScript loader.
const PROBE_SCRIPT = `
const ort = require(process.argv[1]);
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', async () => {
  const bytes = new Uint8Array(Buffer.concat(chunks));
  const out = [];
  for (const provider of ['cpu', 'cuda', 'webgpu']) {
    try {
      const s = await ort.InferenceSession.create(bytes, { executionProviders: [provider], logSeverityLevel: 4 });
      await s.release();
      out.push({ provider, available: true });
    } catch (e) {
      out.push({ provider, available: false, detail: String((e && e.message) || e) });
    }
  }
  process.stdout.write('\\n' + JSON.stringify(out) + '\\n');
});`;

/**
 * ORT says only "Failed to load shared library" when the CUDA provider's own dependencies (the
 * CUDA 12 runtime, cuBLAS, cuDNN 9) are missing; ldd names them, which tells the user what to install.
 */
function missingDependencies(library: string): string[] {
  if (process.platform !== 'linux' || !fs.existsSync(library)) return [];
  const r = spawnSync('ldd', [library], { encoding: 'utf8', timeout: 15_000 });
  return (r.stdout ?? '')
    .split('\n')
    .filter((l) => l.includes('=> not found'))
    .map((l) => l.trim().split(/\s+/)[0]);
}

async function probeInFreshProcess(ortRoot: string): Promise<ProviderReport[]> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
  const r = spawnSync(process.execPath, ['-e', PROBE_SCRIPT, ortRoot], { input: probeModel(), encoding: 'utf8', env, timeout: 120_000 });
  const last = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  let reports: ProviderReport[];
  try {
    reports = JSON.parse(last) as ProviderReport[];
  } catch {
    throw new Error(`the provider probe did not answer (exit ${r.status}): ${providerReason(r.stderr || r.error?.message || 'no output')}`);
  }
  const cudaLib = cudaLibraryPath(ortRoot);
  return reports.map((report) => {
    if (report.available) return { provider: report.provider, available: true };
    let detail = providerReason(report.detail ?? 'not available');
    if (report.provider === 'cuda') {
      const missing = missingDependencies(cudaLib);
      if (!fs.existsSync(cudaLib)) detail = `CUDA provider library not installed (${path.basename(cudaLib)})`;
      else if (missing.length) detail = `${detail}: the CUDA provider needs ${missing.join(', ')} (the CUDA 12 runtime and cuDNN 9) on the library path`;
    }
    return { provider: report.provider, available: false, detail };
  });
}

export const realGpuSetupDeps: GpuSetupDeps = {
  detect: () => detectGpu(),
  ortRoot: ortPackageRoot,
  runInstaller,
  probe: probeInFreshProcess,
};

export interface GpuSetupOptions {
  /** Detect and say what would run, without running it. */
  dryRun?: boolean;
  /** Download again even when the CUDA provider library is already there. */
  force?: boolean;
  /** Each line of the installer's output as it comes. */
  onLine?: (line: string) => void;
  /** Said before the installer starts and after it ends (what runs, what is probed). */
  onStep?: (text: string) => void;
}

/** Output lines kept for the result: the installer prints a few per file; a flood is cut. */
const MAX_OUTPUT_LINES = 2000;

/**
 * Detect, run onnxruntime-node's installer for the CUDA provider, re-probe. Throws GpuNotAvailable
 * (having changed nothing and started nothing) when there is no NVIDIA GPU or the platform has no
 * CUDA provider to download.
 */
export async function gpuSetup(options: GpuSetupOptions = {}, deps: GpuSetupDeps = realGpuSetupDeps): Promise<GpuSetupResult> {
  const detection = deps.detect();
  if (!detection.ok) throw new GpuNotAvailable(`${detection.message}; nothing was installed`);
  const ortRoot = deps.ortRoot();
  const invocation = installerInvocation(ortRoot);
  const command = `ONNXRUNTIME_NODE_INSTALL=true ${[invocation.command, ...invocation.args].map(quote).join(' ')}`;
  const base = { gpu: detection.message, command, output: [] as string[] };
  if (options.dryRun) return { ...base, status: 'dry_run', exitCode: null, providers: [] };
  if (!options.force && fs.existsSync(cudaLibraryPath(ortRoot))) {
    options.onStep?.(`the CUDA provider library is already installed (${cudaLibraryPath(ortRoot)}); --force downloads it again`);
    options.onStep?.('probing providers in a fresh process');
    return { ...base, status: 'already_installed', exitCode: null, providers: await deps.probe(ortRoot) };
  }
  options.onStep?.(`running onnxruntime-node's installer (downloads the CUDA provider from NuGet, a few hundred MB): ${command}`);
  const output: string[] = [];
  const exitCode = await deps.runInstaller(invocation, (line) => {
    if (output.length < MAX_OUTPUT_LINES) output.push(line);
    options.onLine?.(line);
  });
  if (exitCode !== 0) return { ...base, output, status: 'failed', exitCode, providers: [] };
  options.onStep?.('probing providers in a fresh process');
  return { ...base, output, status: 'installed', exitCode, providers: await deps.probe(ortRoot) };
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
