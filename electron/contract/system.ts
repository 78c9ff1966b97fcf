import { z } from 'zod';

export const ProviderName = z.enum(['cpu', 'cuda', 'webgpu']);
export type ProviderName = z.infer<typeof ProviderName>;

export const ProviderStatus = z.strictObject({
  name: ProviderName,
  /** A session with this provider was created and ran a tiny model on this machine. */
  available: z.boolean(),
  /** Why not, in the runtime's own words (or what loaded). */
  detail: z.string(),
});
export type ProviderStatus = z.infer<typeof ProviderStatus>;

export const SystemInfo = z.strictObject({
  app: z.strictObject({ name: z.string(), version: z.string() }),
  versions: z.strictObject({
    node: z.string(),
    v8: z.string(),
    electron: z.string().nullable(),
    onnxruntime: z.string(),
    sqlite: z.string(),
  }),
  providers: z.array(ProviderStatus),
  dataHome: z.string(),
  /** One writer per data home: whether this engine owns it, and if not, who does (in words). */
  dataHomeAccess: z.strictObject({ writable: z.boolean(), owner: z.string().nullable() }),
  cpuCount: z.number().int(),
  totalMemoryBytes: z.number(),
  platform: z.string(),
  arch: z.string(),
  /** How this client reaches the engine. */
  transport: z.enum(['ipc', 'websocket', 'in-process']),
});
export type SystemInfo = z.infer<typeof SystemInfo>;

export const GpuSetupInput = z.strictObject({
  /**
   * check: detect and say what would run; install: run the installer. No default: it downloads
   * hundreds of MB into the application's own folder, so only a request that says so does that
   * (a fuzzer's or a script's empty object does not).
   */
  action: z.enum(['check', 'install']),
});
export type GpuSetupInput = z.input<typeof GpuSetupInput>;

/** `system.gpuSetup`: onnxruntime-node's installer for its CUDA provider, and what loads after it. */
export const GpuSetupOutput = z.strictObject({
  status: z.enum(['dry_run', 'already_installed', 'installed', 'failed']),
  /** What detection found (GPU and driver). */
  gpu: z.string(),
  /** The installer command line. */
  command: z.string(),
  exitCode: z.number().int().nullable(),
  /** The installer's output lines, in order. */
  output: z.array(z.string()),
  /** Providers probed in a fresh process after the installer; empty on a dry run or a failure. */
  providers: z.array(ProviderStatus),
});
export type GpuSetupOutput = z.infer<typeof GpuSetupOutput>;
