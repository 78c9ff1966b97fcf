// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractError, type GpuSetupOutput, type SystemInfo } from '../../../../electron/contract';
import { ConnectionProvider } from '../../../../renderer/src/api/context';
import { SystemView } from '../../../../renderer/src/views/system/SystemView';
import { fakeApi } from '../../fake-api';

afterEach(cleanup);

const info: SystemInfo = {
  app: { name: 'EnvACE Workbench', version: '0.1.0' },
  versions: { node: '20.20.2', v8: '11', electron: null, onnxruntime: '1.30.0', sqlite: '3.53.2' },
  providers: [
    { name: 'cpu', available: true, detail: 'loaded' },
    { name: 'cuda', available: false, detail: 'CUDA provider library not installed (libonnxruntime_providers_cuda.so); run `npx envace gpu setup` to install it' },
    { name: 'webgpu', available: false, detail: 'Failed to get a WebGPU adapter: No supported adapters' },
  ],
  dataHome: '/home/ada/.envace',
  dataHomeAccess: { writable: true, owner: null },
  cpuCount: 2,
  totalMemoryBytes: 2 ** 34,
  platform: 'linux',
  arch: 'x64',
  transport: 'websocket',
};

function renderView(gpuSetup: () => unknown) {
  const fake = fakeApi({ 'system.info': () => info, 'jobs.list': () => ({ items: [] }), 'system.gpuSetup': gpuSetup });
  render(
    <ConnectionProvider connection={{ api: fake.api, transport: 'websocket' }}>
      <SystemView />
    </ConnectionProvider>,
  );
  return fake;
}

/** A promise the test settles, so the busy state can be seen. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('SystemView GPU setup', () => {
  it('shows each provider with its one-line reason', async () => {
    renderView(() => null);
    const list = await screen.findByTestId('providers');
    expect(within(list).getByText('Failed to get a WebGPU adapter: No supported adapters')).toBeTruthy();
  });

  it('runs system.gpuSetup through the engine and shows why not when there is no GPU', async () => {
    const answer = deferred<never>();
    const fake = renderView(() => answer.promise);
    fireEvent.click(await screen.findByTestId('gpu-setup-run'));
    expect((screen.getByTestId('gpu-setup-run') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('gpu-setup-progress').textContent).toContain("onnxruntime-node's installer");
    answer.reject(new ContractError('not_available', 'no NVIDIA GPU found: nvidia-smi is not on PATH and /proc/driver/nvidia/version does not exist; nothing was installed'));
    expect((await screen.findByRole('alert')).textContent).toContain('no NVIDIA GPU found: nvidia-smi is not on PATH');
    expect(fake.calls.filter((c) => c.method === 'system.gpuSetup')).toEqual([{ method: 'system.gpuSetup', input: { action: 'install' } }]);
    expect((screen.getByTestId('gpu-setup-run') as HTMLButtonElement).disabled).toBe(false);
  });

  it("shows the installer's output and which providers load after it", async () => {
    const result: GpuSetupOutput = {
      status: 'installed',
      gpu: 'found NVIDIA H200 (driver 570.86.15) via nvidia-smi',
      command: 'ONNXRUNTIME_NODE_INSTALL=true node …/install.js --onnxruntime-node-install',
      exitCode: 0,
      output: ['Downloading https://api.nuget.org/…nupkg', 'Extracting runtimes/linux-x64/native/libonnxruntime_providers_cuda.so'],
      providers: [
        { name: 'cpu', available: true, detail: 'loaded' },
        { name: 'cuda', available: true, detail: 'loaded' },
      ],
    };
    renderView(() => result);
    fireEvent.click(await screen.findByTestId('gpu-setup-run'));
    const output = await screen.findByTestId('gpu-setup-output');
    expect(within(output).getAllByRole('listitem').map((li) => li.textContent)).toEqual(result.output);
    const providers = screen.getByTestId('gpu-setup-providers');
    await waitFor(() => expect(providers.querySelector('[data-provider="cuda"]')?.getAttribute('data-available')).toBe('true'));
    expect(screen.getByTestId('gpu-setup-result').textContent).toContain('CUDA provider installed');
  });
});
