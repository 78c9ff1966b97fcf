import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EnvDetail, Run, WorkbenchApi } from '../../electron/contract';
import { createEngine, type Engine } from '../../electron/engine/host';
import { registryCatalog } from '../../electron/engine/envs/catalog';
import { homePaths } from '../../electron/engine/home';
import type { EnvCatalog } from '../../electron/engine/system/services';

export function tempHome(prefix = 'envace-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A one-environment catalog for contract tests that must not depend on the real envs. */
export const testCatalog: EnvCatalog = (() => {
  const env: EnvDetail = {
    id: 'contract-test',
    description: 'an environment used only by contract tests',
    track: 'scratch',
    toolCount: 1,
    taskCounts: { train: 2, heldout: 1, ood: 0 },
    tools: [{ name: 'echo', description: 'echo the text', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }],
  };
  const { tools: _tools, ...summary } = env;
  return {
    ids: () => [env.id],
    list: async () => [summary],
    get: async (id) => (id === env.id ? env : null),
    tasks: async (id, split) => {
      if (id !== env.id) return null;
      const all = [
        { id: 'echo-hello', split: 'train' as const, instruction: 'Echo hello' },
        { id: 'echo-world', split: 'train' as const, instruction: 'Echo world' },
        { id: 'echo-held', split: 'heldout' as const, instruction: 'Echo something new' },
      ];
      return split ? all.filter((t) => t.split === split) : all;
    },
    // Echo is the whole tool: enough to prove the call crosses every transport.
    call: async (id, tool, args) => (id !== env.id ? null : tool === 'echo' ? { observation: String(args.text), ok: true, wallMs: 0 } : { observation: `Error: Tool '${tool}' not found`, ok: false, wallMs: 0 }),
  };
})();

export function testEngine(options: { envs?: EnvCatalog; home?: string } = {}): { engine: Engine; home: string; cleanup(): Promise<void> } {
  const home = options.home ?? tempHome();
  // Adding an MCP server goes through the real registry (a real server process), listed beside the fixture env.
  const real = registryCatalog(homePaths(home));
  const envs = options.envs ?? { ...testCatalog, addMcp: real.addMcp, remove: real.remove, test: real.test };
  const engine = createEngine({ home, envs, onInternalError: () => {} });
  return {
    engine,
    home,
    async cleanup() {
      await engine.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Poll a run until it has completed, failed or been cancelled. */
export async function settledRun(api: WorkbenchApi, id: string): Promise<Run> {
  for (;;) {
    const run = await api.call('runs.get', { id });
    if (['completed', 'failed', 'cancelled'].includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 100));
  }
}
