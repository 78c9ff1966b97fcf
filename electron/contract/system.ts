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
