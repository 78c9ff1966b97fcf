import { describe, expect, it } from 'vitest';
import { Graph } from '../../../../native-models/graph/builder';
import * as F from '../../../../native-models/graph/functional';
import { toOnnxBytes } from '../../../../native-models/graph/serialize';
import { availableProviders, createSession, missingVulkanLoader, ort } from '../../../../native-models/runtime/session';

function doubler(): Uint8Array {
  const g = new Graph('doubler');
  g.output(F.mul(g.input('x', 'float32', [2]), 2), 'y');
  return toOnnxBytes(g);
}

describe('runtime sessions', () => {
  it('skips WebGPU on Linux when the Vulkan loader is in neither the linker cache nor LD_LIBRARY_PATH (Dawn would print to stderr)', () => {
    const cache = (names: string) => () => Buffer.from(`ld.so-1.7.0\0${names}\0/usr/lib/x86_64-linux-gnu/${names}`);
    const host = { platform: 'linux' as const, readLdCache: cache('libm.so.6'), exists: () => false };
    expect(missingVulkanLoader(host)).toMatch(/Vulkan loader \(libvulkan\.so\.1\)/);
    expect(missingVulkanLoader({ ...host, readLdCache: cache('libvulkan.so.1') })).toBeNull();
    expect(missingVulkanLoader({ ...host, ldLibraryPath: '/opt/a:/opt/vk', exists: (f) => f === '/opt/vk/libvulkan.so.1' })).toBeNull();
    // No cache to read (musl, Nix): no claim, ORT tries. Other platforms have their own WebGPU backends.
    expect(missingVulkanLoader({ ...host, readLdCache: () => { throw new Error('ENOENT'); } })).toBeNull();
    expect(missingVulkanLoader({ ...host, platform: 'win32' })).toBeNull();
  });

  it('probes providers: cpu always loads, every report says why not when one fails', async () => {
    const reports = await availableProviders();
    expect(reports.map((r) => r.provider).sort()).toEqual(['cpu', 'cuda', 'webgpu']);
    expect(reports.find((r) => r.provider === 'cpu')!.available).toBe(true);
    for (const r of reports.filter((x) => !x.available)) expect(r.detail).toMatch(/\S/);
  });

  it('falls back to cpu with a message when a requested GPU provider cannot load', async () => {
    const cuda = (await availableProviders()).find((r) => r.provider === 'cuda')!;
    const notices: string[] = [];
    const s = await createSession(doubler(), { provider: 'cuda', onFallback: (m) => notices.push(m), enableCpuMemArena: false, intraOpThreads: 1 });
    if (cuda.available) {
      expect(s.provider).toBe('cuda');
      expect(notices).toEqual([]);
    } else {
      expect(s.provider).toBe('cpu');
      expect(s.fallbackReason).toMatch(/^execution provider unavailable, using cpu: cuda: /);
      expect(notices).toEqual([s.fallbackReason]);
    }
    const out = await s.session.run({ x: new ort.Tensor('float32', Float32Array.of(1.5, -2), [2]) });
    expect(Array.from(out.y.data as Float32Array)).toEqual([3, -4]);
  });

  it('auto picks the first provider that loads, cpu last', async () => {
    const first = (await availableProviders()).filter((r) => r.available).map((r) => r.provider);
    const s = await createSession(doubler(), { provider: 'auto' });
    expect(s.provider).toBe(first.includes('cuda') ? 'cuda' : first.includes('webgpu') ? 'webgpu' : 'cpu');
  });

  it('reports a malformed model from ORT instead of falling back', async () => {
    await expect(createSession(Uint8Array.of(1, 2, 3), { provider: 'cpu' })).rejects.toThrow();
  });
});
