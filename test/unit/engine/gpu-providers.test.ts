import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { providerLines } from '../../../electron/cli/commands/system';
import { RunConfig } from '../../../electron/contract';
import { deviceCheck, preflight } from '../../../electron/engine/runs/preflight';
import { availableProviders, providerReason } from '../../../native-models/runtime/session';

// ORT's own words for providers that do not load, as onnxruntime-node 1.30 throws them.
const WEBGPU_RAW =
  '/onnxruntime_src/onnxruntime/core/providers/webgpu/webgpu_context.cc:136 onnxruntime::webgpu::WebGpuContext::Initialize(const onnxruntime::webgpu::WebGpuContextConfig&)::<lambda()> adapter_result.status == wgpu::RequestAdapterStatus::Success was false. Failed to get a WebGPU adapter: No supported adapters';
const CUDA_BRIDGE_RAW =
  '/onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1862 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.12: cannot open shared object file: No such file or directory\n    at InferenceSession.create (node_modules/onnxruntime-node/dist/backend.js:1:1)';

describe('provider reasons', () => {
  it('keep the sentence after the C++ location, signature and failed condition', () => {
    expect(providerReason(new Error(WEBGPU_RAW))).toBe('Failed to get a WebGPU adapter: No supported adapters');
    expect(providerReason(new Error(CUDA_BRIDGE_RAW))).toBe('Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.12: cannot open shared object file: No such file or directory');
    expect(providerReason(new Error('OrtSessionOptionsAppendExecutionProvider_Cuda: Failed to load shared library'))).toBe('OrtSessionOptionsAppendExecutionProvider_Cuda: Failed to load shared library');
  });

  it('are one line, bounded, never empty', () => {
    expect(providerReason(new Error(`\n\nError: first real line\nsecond`))).toBe('first real line');
    const long = providerReason(new Error('x'.repeat(1000)));
    expect(long.length).toBe(300);
    expect(long.endsWith('…')).toBe(true);
    expect(providerReason('')).toBe('');
  });

  it('this machine: every provider that does not load says why in one line without C++ noise', async () => {
    const reports = await availableProviders();
    for (const r of reports.filter((x) => !x.available)) {
      expect(r.detail).toMatch(/\S/);
      expect(r.detail).not.toContain('\n');
      expect(r.detail).not.toMatch(/\.cc:\d+|onnxruntime::/);
    }
  });

  // Where onnxruntime-node's CUDA library is absent (as on the CI machines), its row says the command to paste.
  const cudaLib = path.join(path.dirname(createRequire(import.meta.url).resolve('onnxruntime-node/package.json')), 'bin', 'napi-v6', process.platform, process.arch, 'libonnxruntime_providers_cuda.so');
  it.runIf(process.platform === 'linux' && !fs.existsSync(cudaLib))('a missing CUDA library names the installer as a command that runs after npm ci (npx)', async () => {
    const cuda = (await availableProviders()).find((r) => r.provider === 'cuda');
    expect(cuda?.available).toBe(false);
    expect(cuda?.detail).toMatch(/not installed .*run `npx envace gpu setup` to install it$/);
  });

  it('envace info prints one line per provider, the reason whole', () => {
    const lines = providerLines([
      { name: 'cpu', available: true, detail: 'loaded' },
      { name: 'cuda', available: false, detail: 'CUDA provider library not installed (libonnxruntime_providers_cuda.so); run `npx envace gpu setup` to install it' },
      { name: 'webgpu', available: false, detail: `Failed to get a WebGPU adapter: No supported adapters${' and more'.repeat(20)}` },
    ]);
    expect(lines).toEqual([
      'providers:',
      '  cpu     loads',
      '  cuda    does not load: CUDA provider library not installed (libonnxruntime_providers_cuda.so); run `npx envace gpu setup` to install it',
      `  webgpu  does not load: Failed to get a WebGPU adapter: No supported adapters${' and more'.repeat(20)}`,
    ]);
  });
});

describe('pre-flight device', () => {
  const none = async () => [
    { provider: 'cpu' as const, available: true },
    { provider: 'cuda' as const, available: false, detail: 'CUDA provider library not installed' },
    { provider: 'webgpu' as const, available: false, detail: 'Failed to get a WebGPU adapter: No supported adapters' },
  ];
  const withCuda = async () => [
    { provider: 'cpu' as const, available: true },
    { provider: 'cuda' as const, available: true },
    { provider: 'webgpu' as const, available: false, detail: 'Failed to get a WebGPU adapter: No supported adapters' },
  ];

  it('names the device from the provider knob and what loads', async () => {
    expect(await deviceCheck('cuda', none)).toEqual({ name: 'device', ok: true, detail: 'cpu (cuda not available: CUDA provider library not installed)' });
    expect(await deviceCheck('cuda', withCuda)).toEqual({ name: 'device', ok: true, detail: 'cuda' });
    expect(await deviceCheck('auto', withCuda)).toMatchObject({ detail: 'cuda' });
    expect(await deviceCheck('auto', none)).toMatchObject({
      detail: 'cpu (cuda not available: CUDA provider library not installed; webgpu not available: Failed to get a WebGPU adapter: No supported adapters)',
    });
    expect(await deviceCheck('webgpu', withCuda)).toMatchObject({ detail: 'cpu (webgpu not available: Failed to get a WebGPU adapter: No supported adapters)' });
    expect(await deviceCheck('cpu', async () => Promise.reject(new Error('cpu asks nothing')))).toMatchObject({ detail: 'cpu (provider cpu)' });
  });

  it('runs.preflight carries the device line', async () => {
    const result = await preflight(RunConfig.parse({ env: 'mock', model: { preset: 'nano' }, provider: 'cuda' }), undefined, { providers: none });
    expect(result.checks.find((c) => c.name === 'device')).toEqual({ name: 'device', ok: true, detail: 'cpu (cuda not available: CUDA provider library not installed)' });
    // A fallback still trains: the device line informs, it never fails the pre-flight (other checks may).
    expect(result.checks.filter((c) => !c.ok).map((c) => c.name)).not.toContain('device');
  });

  it("this machine's own probe: the device is one that loads here", async () => {
    const result = await preflight(RunConfig.parse({ env: 'mock', model: { preset: 'nano' } }));
    const device = result.checks.find((c) => c.name === 'device')!.detail;
    const loads = (await availableProviders()).filter((r) => r.available).map((r) => r.provider);
    expect(loads).toContain(device.split(' ')[0]);
  });
});
