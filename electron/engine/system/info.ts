import os from 'node:os';
// Imported, not read at run time: a relative read would name a different folder from the source
// tree (electron/engine/system/) than from the bundle (out/main/); the bundle carries the version.
import { version } from '../../../package.json';
import type { ProviderStatus, SystemInfo } from '../../contract';
import type { ComputeClient } from '../compute/client';
import type { Db } from '../store';

/**
 * Facts about this machine and build. Providers are probed in the compute worker, where ORT
 * runs, so the list says what a training job will actually get.
 */
export async function systemInfo(args: {
  compute: ComputeClient;
  db: Db;
  dataHome: string;
  dataHomeAccess: SystemInfo['dataHomeAccess'];
  transport: SystemInfo['transport'];
}): Promise<SystemInfo> {
  const [providers, onnxruntime] = await Promise.all([args.compute.call('providers', {}), args.compute.call('ortVersion', {})]);
  const sqlite = args.db.prepare('SELECT sqlite_version()').pluck().get() as string;
  return {
    app: { name: 'EnvACE Workbench', version },
    versions: {
      node: process.versions.node,
      v8: process.versions.v8,
      electron: process.versions.electron ?? null,
      onnxruntime,
      sqlite,
    },
    providers: providers.map((p): ProviderStatus => ({
      name: p.provider,
      available: p.available,
      detail: p.available ? 'loaded' : (p.detail ?? 'not available'),
    })),
    dataHome: args.dataHome,
    dataHomeAccess: args.dataHomeAccess,
    cpuCount: os.availableParallelism?.() ?? os.cpus().length,
    totalMemoryBytes: os.totalmem(),
    platform: process.platform,
    arch: process.arch,
    transport: args.transport,
  };
}
