// ONNX Runtime sessions from serialised graphs, with an execution-provider choice that falls back
// to the CPU (with a message saying why) when a GPU provider cannot load on this machine.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { Graph } from '../graph/builder';
import { toOnnxBytes } from '../graph/serialize';
import { disableOrtTelemetry } from './ort-env';
import { providerReason } from './provider-reason';

export { providerReason } from './provider-reason';

// ORT reads the switch at its first session, not at import, so setting it here is early enough
// for sessions made on this thread (the compute worker's are covered by its client).
disableOrtTelemetry();

export type Provider = 'cpu' | 'cuda' | 'webgpu';
export type ProviderChoice = Provider | 'auto';

export interface SessionOptions {
  provider?: ProviderChoice;
  /** ORT's CPU arena keeps freed buffers for reuse; off trims resident memory (Electron main process). */
  enableCpuMemArena?: boolean;
  intraOpThreads?: number;
  /**
   * Let ORT's intra-op threads spin while waiting for work (default off). Spinning only pays on an
   * otherwise idle machine; between runs (tokenising, env steps) and beside any other busy process it
   * burns the cores the work needs. Measured on 2 cores: a nano train step 81 → 37 ms alone and tiny's
   * CPU per step 720 → 390 ms; under load 7 tiny decode at batch 8 went 471 → 3,847 tokens/s.
   */
  spinning?: boolean;
  /** Receives the fallback notice when a requested provider could not load. */
  onFallback?: (message: string) => void;
}

export interface CompiledSession {
  readonly session: ort.InferenceSession;
  /** The provider that actually runs the graph. */
  readonly provider: Provider;
  readonly fallbackReason?: string;
}

const GPU_ORDER: Provider[] = ['cuda', 'webgpu'];

/** Providers known not to load in this process, with the reason (probed once, not per session). */
const unavailable = new Map<Provider, string>();

/**
 * onnxruntime-node's CUDA provider is a separate shared library its install script downloads;
 * where that script was off (as here) asking ORT for CUDA only fails noisily. Check the file.
 */
function missingCudaLibrary(): string | null {
  const lib = process.platform === 'win32' ? 'onnxruntime_providers_cuda.dll' : 'libonnxruntime_providers_cuda.so';
  try {
    const root = dirname(createRequire(import.meta.url).resolve('onnxruntime-node/package.json'));
    const file = join(root, 'bin', 'napi-v6', process.platform, process.arch, lib);
    return existsSync(file) ? null : `CUDA provider library not installed (${lib}); run \`npx envace gpu setup\` to install it`;
  } catch {
    return null;
  }
}

/**
 * On Linux, onnxruntime-node's WebGPU runs on Dawn's Vulkan backend; without the Vulkan loader Dawn
 * prints "Couldn't load Vulkan" to stderr on every try before failing — noise in a CPU-only user's
 * first `envace train`. The loader is found through the dynamic linker's cache or LD_LIBRARY_PATH;
 * where neither can be read (no cache file), say nothing and let ORT try.
 */
export function missingVulkanLoader(
  host: { platform: NodeJS.Platform; ldLibraryPath?: string; readLdCache: () => Buffer; exists: (file: string) => boolean } = {
    platform: process.platform,
    ldLibraryPath: process.env.LD_LIBRARY_PATH,
    readLdCache: () => readFileSync('/etc/ld.so.cache'),
    exists: existsSync,
  },
): string | null {
  if (host.platform !== 'linux') return null;
  const lib = 'libvulkan.so.1';
  if ((host.ldLibraryPath ?? '').split(':').some((dir) => dir && host.exists(join(dir, lib)))) return null;
  try {
    return host.readLdCache().includes(lib) ? null : `WebGPU needs the Vulkan loader (${lib}), which is not installed`;
  } catch {
    return null;
  }
}

function knownUnavailable(provider: Provider): string | null {
  if (provider === 'cuda' && !unavailable.has('cuda')) {
    const missing = missingCudaLibrary();
    if (missing) unavailable.set('cuda', missing);
  }
  if (provider === 'webgpu' && !unavailable.has('webgpu')) {
    const missing = missingVulkanLoader();
    if (missing) unavailable.set('webgpu', missing);
  }
  return unavailable.get(provider) ?? null;
}

function ortOptions(provider: Provider, o: SessionOptions): ort.InferenceSession.SessionOptions {
  const options: ort.InferenceSession.SessionOptions = {
    executionProviders: [provider],
    enableCpuMemArena: o.enableCpuMemArena ?? true,
    graphOptimizationLevel: 'all',
    // A GPU provider that cannot load is reported through the fallback message; ORT's own
    // error log for it would only alarm (severity 4 = fatal only).
    ...(provider === 'cpu' ? {} : { logSeverityLevel: 4 as const }),
  };
  if (o.intraOpThreads !== undefined) options.intraOpNumThreads = o.intraOpThreads;
  if (!o.spinning) options.extra = { session: { intra_op: { allow_spinning: '0' } } };
  return options;
}

export async function createSession(bytes: Uint8Array, o: SessionOptions = {}): Promise<CompiledSession> {
  const choice = o.provider ?? 'cpu';
  const candidates: Provider[] = choice === 'auto' ? [...GPU_ORDER, 'cpu'] : choice === 'cpu' ? ['cpu'] : [choice, 'cpu'];
  const failures: string[] = [];
  for (const provider of candidates) {
    const known = provider === 'cpu' ? null : knownUnavailable(provider);
    if (known) {
      failures.push(`${provider}: ${known}`);
      continue;
    }
    try {
      const session = await ort.InferenceSession.create(bytes, ortOptions(provider, o));
      if (failures.length === 0) return { session, provider };
      const fallbackReason = `execution provider unavailable, using ${provider}: ${failures.join('; ')}`;
      if (choice !== 'auto') o.onFallback?.(fallbackReason);
      return { session, provider, fallbackReason };
    } catch (e) {
      if (provider === 'cpu') throw e;
      unavailable.set(provider, providerReason(e));
      failures.push(`${provider}: ${providerReason(e)}`);
    }
  }
  throw new Error('unreachable: the CPU provider is always a candidate');
}


// A one-node model (Identity on a float [1]) used to probe which providers load here.
function probeModel(): Uint8Array {
  const g = new Graph('provider_probe');
  g.output(g.op1('Identity', [g.input('x', 'float32', [1])]), 'y');
  return toOnnxBytes(g);
}

let probed: Promise<ProviderReport[]> | undefined;

export interface ProviderReport {
  provider: Provider;
  available: boolean;
  detail?: string;
}

/** Which execution providers actually create a session on this machine (probed once per process). */
export function availableProviders(): Promise<ProviderReport[]> {
  probed ??= (async () => {
    const reports: ProviderReport[] = [];
    for (const provider of ['cpu', ...GPU_ORDER] as Provider[]) {
      const known = provider === 'cpu' ? null : knownUnavailable(provider);
      if (known) {
        reports.push({ provider, available: false, detail: known });
        continue;
      }
      try {
        // Severity 4 (fatal only): a provider that cannot load is an expected answer here, not an error to log.
        const s = await ort.InferenceSession.create(probeModel(), { executionProviders: [provider], logSeverityLevel: 4 });
        await s.release();
        reports.push({ provider, available: true });
      } catch (e) {
        unavailable.set(provider, providerReason(e));
        reports.push({ provider, available: false, detail: providerReason(e) });
      }
    }
    return reports;
  })();
  return probed;
}

export { ort };
