import { ContractError, type ProviderStatus } from '../../contract';
import { GpuNotAvailable, gpuSetup, realGpuSetupDeps, type GpuSetupDeps } from '../system/gpu-setup';
import { systemInfo } from '../system/info';
import type { HandlerGroup } from './types';

/** The system handlers over a given machine; tests stand in for GPU detection and the installer. */
export function systemHandlersWith(gpu: GpuSetupDeps): HandlerGroup<'system.info' | 'system.gpuSetup'> {
  // Two installers writing the same files at once would leave either one's half; the second click waits its turn.
  let setupRunning = false;
  return (s) => ({
    'system.info': (_input, ctx) => systemInfo({ compute: s.compute, db: s.store.db, dataHome: s.paths.home, dataHomeAccess: s.homeAccess(), transport: ctx.transport }),
    'system.gpuSetup': async ({ action }) => {
      if (setupRunning) throw new ContractError('conflict', 'a GPU setup is already running');
      setupRunning = true;
      try {
        const result = await gpuSetup({ dryRun: action === 'check' }, gpu);
        return {
          ...result,
          providers: result.providers.map((p): ProviderStatus => ({ name: p.provider, available: p.available, detail: p.available ? 'loaded' : (p.detail ?? 'not available') })),
        };
      } catch (error) {
        if (error instanceof GpuNotAvailable) throw new ContractError('not_available', error.message);
        throw error;
      } finally {
        setupRunning = false;
      }
    },
  });
}

export const systemHandlers = systemHandlersWith(realGpuSetupDeps);
