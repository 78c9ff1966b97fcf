import type { Command } from 'commander';
import { GpuNotAvailable, gpuSetup, realGpuSetupDeps, type GpuSetupDeps } from '../../engine/system/gpu-setup';
import { CliError, EXIT } from '../output';
import { act, leaf, type CommonOptions } from './common';
import { providerLines } from './system';

interface SetupOptions extends CommonOptions {
  dryRun?: boolean;
  force?: boolean;
}

/**
 * `envace gpu setup`: installs onnxruntime-node's CUDA provider with its own installer. Needs no
 * data home (it takes --home like every command, and ignores it), so it runs without an engine.
 * `deps` lets tests stand in for the machine.
 */
export function registerGpu(program: Command, deps: GpuSetupDeps = realGpuSetupDeps): void {
  const gpu = program.command('gpu').description('switch an NVIDIA GPU on for training and decoding');
  leaf(gpu.command('setup'))
    .description("install onnxruntime-node's CUDA provider (Linux x64 with an NVIDIA driver), then say which providers load")
    .option('--dry-run', 'detect and print the installer command without running it')
    .option('--force', 'download again even when the CUDA provider is already installed')
    .action(
      act<SetupOptions>(async (_args, opts, out) => {
        // With --json stdout ends in one JSON object, so the installer's lines go to stderr.
        const say = (line: string) => (out.json ? process.stderr.write(`${line}\n`) : out.line(line));
        let result;
        try {
          result = await gpuSetup({ dryRun: opts.dryRun, force: opts.force, onStep: say, onLine: (line) => say(`  | ${line}`) }, deps);
        } catch (error) {
          if (error instanceof GpuNotAvailable) throw new CliError(error.message, EXIT.notAvailable);
          throw error;
        }
        if (result.status === 'failed') throw new CliError(`onnxruntime-node's installer exited with code ${result.exitCode} (its output is above); nothing else was changed`);
        const cuda = result.providers.find((p) => p.provider === 'cuda');
        out.result(result, () =>
          result.status === 'dry_run'
            ? [result.gpu, `would run: ${result.command}`].join('\n')
            : [
                result.gpu,
                ...providerLines(result.providers.map((p) => ({ name: p.provider, available: p.available, detail: p.available ? 'loaded' : (p.detail ?? 'not available') }))),
                cuda?.available ? 'cuda loads: new runs with provider auto or cuda train on the GPU (a running workbench picks it up after a restart)' : '',
              ]
                .filter(Boolean)
                .join('\n'),
        );
        // Installed but still not loading (CUDA runtime or cuDNN missing): the GPU is not usable yet.
        if (result.status !== 'dry_run' && !cuda?.available) throw new CliError(`the CUDA provider is installed but does not load: ${cuda?.detail ?? 'not probed'}`, EXIT.notAvailable);
      }),
    );
}
