// `envace models pull` and `models search` as a user runs them: the real command in its own process,
// against a local Hub-shaped server (HF_ENDPOINT), never the internet.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportHfFolder } from '../../native-models';
import { hfShapeFromConfig, hfWeightsFromParams } from '../../electron/engine/models/convert';
import { lastJson, runEnvace } from '../helpers/cli';
import { tempHome } from '../helpers/engine';
import { type HubServer, deadEndpoint, repoFromFolder, startHubServer } from '../helpers/hub-server';
import { nanoConfig, randomWeights, smallTokenizer } from '../unit/engine/models/fixtures';

const COMMIT = 'e'.repeat(40);
const saved = { endpoint: process.env.HF_ENDPOINT, token: process.env.HF_TOKEN };
const dirs: string[] = [];
let hub: HubServer;
let home: string;

beforeAll(async () => {
  const src = tempHome('envace-hub-src-');
  home = tempHome('envace-hub-cli-');
  dirs.push(src, home);
  const config = nanoConfig();
  const folder = path.join(src, 'llama');
  exportHfFolder(folder, { shape: hfShapeFromConfig(config), weights: hfWeightsFromParams(config, randomWeights(config, 5)), tokenizer: smallTokenizer(), modelCard: '# tiny\n' });
  hub = await startHubServer({ 'tiny/llama': repoFromFolder(folder, COMMIT), 'tiny/gated': { ...repoFromFolder(folder, 'f'.repeat(40)), token: 'hf_cli_secret' } });
  process.env.HF_ENDPOINT = hub.url;
  delete process.env.HF_TOKEN;
});
afterAll(async () => {
  await hub?.close();
  for (const [k, v] of [['HF_ENDPOINT', saved.endpoint], ['HF_TOKEN', saved.token]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});


describe('envace models pull', () => {
  it('pulls, prints progress on stderr and one JSON line on stdout, and the model is listed', async () => {
    const r = await runEnvace(home, 'models', 'pull', 'tiny/llama', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const out = lastJson(r.stdout);
    expect(out).toMatchObject({ model: 'llama', repo: 'tiny/llama', revision: 'main', commit: COMMIT, fromCache: false });
    expect(out.downloadedBytes).toBe(out.totalBytes);
    expect(r.stderr).toMatch(/resolving tiny\/llama/);
    expect(r.stderr).toMatch(/100%\s+[\d.]+ MiB \/ [\d.]+ MiB/);
    const listed = await runEnvace(home, 'models', '--json');
    expect(lastJson(listed.stdout).items.map((m: { name: string }) => m.name)).toContain('llama');
    // The same name again is a conflict (exit 5), found before anything moves.
    const again = await runEnvace(home, 'models', 'pull', 'tiny/llama');
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/already imported/);
  });

  it('uses the cache when the Hub cannot be reached, saying so, and fails with exit 4 for what is not cached', async () => {
    process.env.HF_ENDPOINT = await deadEndpoint();
    try {
      const cached = await runEnvace(home, 'models', 'pull', 'tiny/llama', '--name', 'llama-offline');
      expect(cached.code, cached.stderr).toBe(0);
      expect(cached.stdout).toMatch(/could not be reached.*used the cached snapshot/);
      expect(cached.stdout).toMatch(/from the cache/);
      const missing = await runEnvace(home, 'models', 'pull', 'tiny/gated');
      expect(missing.code).toBe(4);
      expect(missing.stderr).toContain(`cannot reach the Hugging Face Hub at ${process.env.HF_ENDPOINT}`);
      expect(missing.stderr).toContain('cached models: tiny/llama@main');
    } finally {
      process.env.HF_ENDPOINT = hub.url;
    }
  });

  it('a gated repo: exit 4 naming HF_TOKEN without it, pulled with it', async () => {
    const refused = await runEnvace(home, 'models', 'pull', 'tiny/gated');
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/gated: set HF_TOKEN/);
    process.env.HF_TOKEN = 'hf_cli_secret';
    try {
      const r = await runEnvace(home, 'models', 'pull', 'tiny/gated', '--json');
      expect(r.code, r.stderr).toBe(0);
      expect(lastJson(r.stdout)).toMatchObject({ model: 'gated', commit: 'f'.repeat(40) });
    } finally {
      delete process.env.HF_TOKEN;
    }
  });

  it('refuses a malformed id with exit 2, and searches the Hub', async () => {
    const bad = await runEnvace(home, 'models', 'pull', '../etc');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a Hub model id/);
    const found = await runEnvace(home, 'models', 'search', 'llama', '--json');
    expect(lastJson(found.stdout).items.map((h: { id: string }) => h.id)).toEqual(['tiny/llama']);
    const text = await runEnvace(home, 'models', 'search', 'gated');
    expect(text.stdout).toMatch(/tiny\/gated\s+\d+\s+\d+\s+yes \(HF_TOKEN\)/);
  });
});
