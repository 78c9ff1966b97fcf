// ONNX Runtime sessions from serialised graphs, with an execution-provider choice that falls back
// to the CPU (with a message saying why) when a GPU provider cannot load on this machine.
import * as ort from 'onnxruntime-node';
import { Graph } from '../graph/builder';
import { toOnnxBytes } from '../graph/serialize';

export type Provider = 'cpu' | 'cuda' | 'webgpu';
export type ProviderChoice = Provider | 'auto';

export interface SessionOptions {
  provider?: ProviderChoice;
  /** ORT's CPU arena keeps freed buffers for reuse; off trims resident memory (Electron main process). */
  enableCpuMemArena?: boolean;
  intraOpThreads?: number;
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
  return options;
}

export async function createSession(bytes: Uint8Array, o: SessionOptions = {}): Promise<CompiledSession> {
  const choice = o.provider ?? 'cpu';
  const candidates: Provider[] = choice === 'auto' ? [...GPU_ORDER, 'cpu'] : choice === 'cpu' ? ['cpu'] : [choice, 'cpu'];
  const failures: string[] = [];
  for (const provider of candidates) {
    try {
      const session = await ort.InferenceSession.create(bytes, ortOptions(provider, o));
      if (failures.length === 0) return { session, provider };
      const fallbackReason = `execution provider unavailable, using ${provider}: ${failures.join('; ')}`;
      if (choice !== 'auto') o.onFallback?.(fallbackReason);
      return { session, provider, fallbackReason };
    } catch (e) {
      if (provider === 'cpu') throw e;
      failures.push(`${provider}: ${firstLine(e)}`);
    }
  }
  throw new Error('unreachable: the CPU provider is always a candidate');
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0].slice(0, 400);
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
      try {
        // Severity 4 (fatal only): a provider that cannot load is an expected answer here, not an error to log.
        const s = await ort.InferenceSession.create(probeModel(), { executionProviders: [provider], logSeverityLevel: 4 });
        await s.release();
        reports.push({ provider, available: true });
      } catch (e) {
        reports.push({ provider, available: false, detail: firstLine(e) });
      }
    }
    return reports;
  })();
  return probed;
}

export { ort };
