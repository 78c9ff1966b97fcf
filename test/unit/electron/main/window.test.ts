import { describe, expect, it } from 'vitest';
import { methodNames } from '../../../../electron/contract';
import { handleInvoke } from '../../../../electron/main/ipc-router';
import { isTrustedUrl, RENDERER_CSP, windowOptions } from '../../../../electron/main/window';
import { buildBridge, type IpcLike } from '../../../../electron/preload/bridge';

describe('the Electron window (security checklist, asserted without the binary)', () => {
  const options = windowOptions('/app/out/preload/index.cjs');
  const web = options.webPreferences!;

  it('isolates the renderer: context isolation, sandbox, no Node', () => {
    expect(web).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
    });
    expect(web.preload).toBe('/app/out/preload/index.cjs');
  });

  it('has a CSP with no remote or inline script and no framing', () => {
    expect(RENDERER_CSP).toContain("script-src 'self'");
    expect(RENDERER_CSP).not.toMatch(/script-src[^;]*unsafe/);
    expect(RENDERER_CSP).toContain("object-src 'none'");
    expect(RENDERER_CSP).toContain("frame-ancestors 'none'");
    expect(RENDERER_CSP).not.toMatch(/https?:/);
  });

  it('trusts only its own app:// origin', () => {
    expect(isTrustedUrl('app://workbench/index.html')).toBe(true);
    for (const url of ['https://example.com', 'file:///etc/passwd', 'app://other/index.html', 'app://workbench.evil/x', 'not a url', '']) {
      expect(isTrustedUrl(url), url).toBe(false);
    }
  });
});

describe('the IPC router', () => {
  const forward = async () => ({ ok: true as const, value: 'forwarded' });
  it('forwards requests from our top-level frame', async () => {
    const event = { senderFrame: { url: 'app://workbench/index.html', parent: null } } as never;
    expect(await handleInvoke(event, 'runs.list', {}, forward)).toEqual({ ok: true, value: 'forwarded' });
  });
  it('refuses other origins and sub-frames', async () => {
    const foreign = { senderFrame: { url: 'https://evil.example/', parent: null } } as never;
    const subframe = { senderFrame: { url: 'app://workbench/index.html', parent: {} } } as never;
    for (const event of [foreign, subframe, { senderFrame: null } as never]) {
      expect(await handleInvoke(event, 'runs.list', {}, forward)).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    }
  });
});

describe('the preload bridge', () => {
  const calls: unknown[][] = [];
  const ipc: IpcLike = {
    invoke: async (...args) => {
      calls.push(args);
      return { ok: true, value: null };
    },
    on: () => {},
    removeListener: () => {},
  };
  const bridge = buildBridge(ipc);

  it('exposes exactly invoke, onEvent and the contract method list', () => {
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'methods', 'onEvent']);
    expect(bridge.methods).toEqual(methodNames);
  });

  it('sends contract methods over the invoke channel and refuses anything else locally', async () => {
    await bridge.invoke('runs.list', {});
    expect(calls).toEqual([['workbench:invoke', 'runs.list', {}]]);
    expect(await bridge.invoke('require', 'fs')).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(await bridge.invoke('__proto__', {})).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(calls).toHaveLength(1);
  });
});
