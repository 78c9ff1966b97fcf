import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exportHfFolder, readHfWeights } from '../../../../../native-models';
import { hfShapeFromConfig, hfWeightsFromParams } from '../../../../../electron/engine/models/convert';
import { importModel, loadModel } from '../../../../../electron/engine/models/registry';
import { HubError, pullModel } from '../../../../../electron/engine/models/hub';
import { type HubServer, deadEndpoint, repoFromFolder, startHubServer } from '../../../../helpers/hub-server';
import { nanoConfig, randomWeights, smallTokenizer, tempDirs } from '../fixtures';

const tmp = tempDirs();
const COMMIT = 'a'.repeat(40);
const SHARD = 'model-00001-of-00002.safetensors';
let hub: HubServer;
let folder: string;

beforeAll(async () => {
  const config = nanoConfig();
  folder = join(tmp.make(), 'tiny-llama');
  exportHfFolder(folder, { shape: hfShapeFromConfig(config), weights: hfWeightsFromParams(config, randomWeights(config, 3)), tokenizer: smallTokenizer(), modelCard: '# tiny\n' });
  // Files a pull must leave alone: pickled weights and a sub-folder variant.
  const extras = { 'pytorch_model.bin': Buffer.alloc(64, 7), 'onnx/model.onnx': 'not pulled', 'chat_template.jinja': '{{ messages }}' };
  hub = await startHubServer({
    'tiny/llama': repoFromFolder(folder, COMMIT, extras),
    'tiny/gated': { ...repoFromFolder(folder, 'b'.repeat(40)), token: 'hf_secret' },
    'tiny/gpt2': repoFromFolder(folder, 'c'.repeat(40), { 'config.json': JSON.stringify({ architectures: ['GPT2LMHeadModel'], model_type: 'gpt2' }) }),
  });
});
afterAll(async () => {
  await hub.close();
  tmp.cleanup();
});
afterEach(() => {
  hub.requests.length = 0;
  hub.cutOnce.clear();
  hub.corrupt.clear();
  hub.padded.clear();
  hub.treePageSize = null;
  delete hub.repos.get('tiny/llama')!.extraTree;
});

const cacheDir = () => join(tmp.make(), 'cache');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
async function hubError(p: Promise<unknown>): Promise<HubError> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(HubError);
  return e as HubError;
}

describe('pullModel against a local Hub', () => {
  it('pulls the sharded safetensors, config, tokenizer and chat template (nothing else) and the import loads them', async () => {
    const cache = cacheDir();
    const seen: number[] = [];
    const r = await pullModel({ ref: 'tiny/llama', cacheDir: cache, endpoint: hub.url, onProgress: (p) => seen.push(p.doneBytes / p.totalBytes) });
    expect(r).toMatchObject({ repo: 'tiny/llama', revision: 'main', commit: COMMIT, fromCache: false });
    const repo = hub.repos.get('tiny/llama')!;
    const wanted = ['chat_template.jinja', 'config.json', 'generation_config.json', SHARD, 'model-00002-of-00002.safetensors', 'model.safetensors.index.json', 'tokenizer.json', 'tokenizer_config.json'];
    expect(r.files.map((f) => f.path).sort()).toEqual(wanted);
    for (const f of wanted) expect(readFileSync(join(r.dir, f)).equals(repo.files.get(f)!)).toBe(true);
    expect(hub.requests.some((q) => /pytorch_model|onnx|README/.test(q.path))).toBe(false);
    expect(r.downloadedBytes).toBe(wanted.reduce((n, f) => n + repo.files.get(f)!.length, 0));
    expect(seen.at(-1)).toBe(1);
    expect(seen.every((f, i) => i === 0 || f >= seen[i - 1]!)).toBe(true);

    const weights = readHfWeights(r.dir).tensors;
    const original = readHfWeights(folder).tensors;
    expect([...weights.keys()].sort()).toEqual([...original.keys()].sort());
    const modelsDir = join(tmp.make(), 'models');
    const entry = await importModel({ hfDir: r.dir, name: 'pulled', modelsDir });
    expect(entry.architecture).toBe('LlamaForCausalLM');
    expect(entry.config).toEqual(nanoConfig());
    // It loads as the model that was served: every weight the same numbers.
    const loaded = loadModel(modelsDir, 'pulled');
    const served = randomWeights(nanoConfig(), 3);
    expect([...loaded.weights.keys()].sort()).toEqual([...served.keys()].sort());
    for (const [k, v] of served) expect(loaded.weights.get(k)).toEqual(v);
  });

  it('continues a download cut mid-file with a Range request, and one a previous pull left half done', async () => {
    const cache = cacheDir();
    const shard = hub.repos.get('tiny/llama')!.files.get(SHARD)!;
    hub.cutOnce.set(SHARD, 1000);
    const r = await pullModel({ ref: 'tiny/llama', cacheDir: cache, endpoint: hub.url });
    expect(sha(readFileSync(join(r.dir, SHARD)))).toBe(sha(shard));
    const shardGets = hub.requests.filter((q) => q.path.startsWith('/cdn/' + sha(shard)));
    expect(shardGets.map((q) => q.range)).toEqual([null, 'bytes=1000-']);
    // Only the cut-off rest moved the second time: the bytes total is the file's, not more.
    expect(r.downloadedBytes).toBe(r.files.reduce((n, f) => n + f.size, 0));

    const again = cacheDir();
    const dir = join(again, 'models--tiny--llama', 'snapshots', COMMIT);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, SHARD + '.incomplete'), shard.subarray(0, 777));
    hub.requests.length = 0;
    const resumed = await pullModel({ ref: 'tiny/llama', cacheDir: again, endpoint: hub.url });
    expect(readFileSync(join(resumed.dir, SHARD)).equals(shard)).toBe(true);
    expect(hub.requests.filter((q) => q.path.startsWith('/cdn/' + sha(shard))).map((q) => q.range)).toEqual(['bytes=777-']);
    expect(readdirSync(dir).some((f) => f.endsWith('.incomplete'))).toBe(false);
  });

  it('refuses a file whose bytes do not hash to the tree sha256, deletes it and leaves no usable snapshot', async () => {
    const cache = cacheDir();
    hub.corrupt.add(SHARD);
    const e = await hubError(pullModel({ ref: 'tiny/llama', cacheDir: cache, endpoint: hub.url }));
    expect(e.code).toBe('CHECKSUM');
    expect(e.message).toContain(SHARD);
    const dir = join(cache, 'models--tiny--llama', 'snapshots', COMMIT);
    expect(readdirSync(dir).filter((f) => f.startsWith(SHARD))).toEqual([]);
    // Offline, nothing is cached: the refused pull did not count as one.
    expect((await hubError(pullModel({ ref: 'tiny/llama', cacheDir: cache, offline: true }))).code).toBe('NOT_CACHED');
  });

  it('a gated repo answers 401 without HF_TOKEN, 403 with a token lacking access, and pulls with the right one', async () => {
    const cache = cacheDir();
    const none = await hubError(pullModel({ ref: 'tiny/gated', cacheDir: cache, endpoint: hub.url, token: '' }));
    expect(none.code).toBe('AUTH');
    expect(none.message).toMatch(/gated: set HF_TOKEN/);
    expect((await hubError(pullModel({ ref: 'tiny/gated', cacheDir: cache, endpoint: hub.url, token: 'hf_wrong' }))).code).toBe('FORBIDDEN');
    hub.requests.length = 0;
    const r = await pullModel({ ref: 'tiny/gated', cacheDir: cache, endpoint: hub.url, token: 'hf_secret' });
    expect(r.fromCache).toBe(false);
    // The bearer goes to the Hub's API and resolve; a missing repo reads as not found or private.
    expect(hub.requests.filter((q) => q.path.startsWith('/api/')).every((q) => q.auth === 'Bearer hf_secret')).toBe(true);
    expect((await hubError(pullModel({ ref: 'tiny/missing', cacheDir: cache, endpoint: hub.url, token: '' }))).message).toMatch(/does not exist or is private/);
  });

  it('uses the cache offline and when the Hub cannot be reached, and says which models are cached when it cannot help', async () => {
    const cache = cacheDir();
    const first = await pullModel({ ref: 'tiny/llama', cacheDir: cache, endpoint: hub.url });
    hub.requests.length = 0;
    const offline = await pullModel({ ref: 'tiny/llama', cacheDir: cache, endpoint: hub.url, offline: true });
    expect(offline).toMatchObject({ fromCache: true, commit: COMMIT, dir: first.dir, downloadedBytes: 0 });
    expect(hub.requests).toEqual([]);
    process.env.HF_HUB_OFFLINE = '1';
    try {
      expect(await pullModel({ ref: 'tiny/llama', cacheDir: cache, endpoint: hub.url })).toMatchObject({ fromCache: true, note: expect.stringContaining('offline') });
      expect(hub.requests).toEqual([]);
    } finally {
      delete process.env.HF_HUB_OFFLINE;
    }

    const dead = await deadEndpoint();
    const away = await pullModel({ ref: 'tiny/llama', cacheDir: cache, endpoint: dead });
    expect(away.fromCache).toBe(true);
    expect(away.note).toContain('could not be reached');
    const e = await hubError(pullModel({ ref: 'tiny/other', cacheDir: cache, endpoint: dead }));
    expect(e.code).toBe('UNREACHABLE');
    expect(e.message).toBe(`cannot reach the Hugging Face Hub at ${dead} (ECONNREFUSED); cached models: tiny/llama@main`);
    // Online again, a revision already complete in the cache downloads nothing.
    const online = await pullModel({ ref: `tiny/llama@${COMMIT}`, cacheDir: cache, endpoint: hub.url });
    expect(online).toMatchObject({ fromCache: true, downloadedBytes: 0 });
    expect(existsSync(join(cache, 'models--tiny--llama', 'refs', COMMIT))).toBe(true);
  });

  it('refuses an architecture the import cannot load after config.json, before any weight moves', async () => {
    const e = await hubError(pullModel({ ref: 'tiny/gpt2', cacheDir: cacheDir(), endpoint: hub.url }));
    expect(e.code).toBe('UNSUPPORTED');
    expect(e.message).toMatch(/GPT2LMHeadModel/);
    expect(hub.requests.some((q) => q.path.startsWith('/cdn/'))).toBe(false);
  });

  it('refuses a malformed model id before any request', async () => {
    for (const bad of ['llama', 'a/b/c', '../x', 'owner/name@']) expect((await hubError(pullModel({ ref: bad, cacheDir: cacheDir(), endpoint: hub.url }))).code).toBe('BAD_REPO');
    expect(hub.requests).toEqual([]);
  });

  it('follows the tree through its pages (Link: rel="next"), as the Hub pages a recursive tree', async () => {
    hub.treePageSize = 3;
    const r = await pullModel({ ref: 'tiny/llama', cacheDir: cacheDir(), endpoint: hub.url });
    expect(r.files.map((f) => f.path)).toContain('model-00002-of-00002.safetensors');
    const pages = hub.requests.filter((q) => q.path.includes('/tree/')).length;
    expect(pages).toBe(Math.ceil(hub.repos.get('tiny/llama')!.files.size / 3));
  });

  it('refuses a tree that lists an unsafe path (.., absolute, backslash, drive) before any file moves', async () => {
    const cache = cacheDir();
    for (const hostile of ['../../escape.safetensors', 'onnx/../../x.json', '/etc/passwd', '..\\..\\evil.safetensors', 'C:/evil.safetensors', 'a//b.json', './config.json']) {
      hub.repos.get('tiny/llama')!.extraTree = [{ type: 'file', path: hostile, size: 4, oid: 'f'.repeat(40) }];
      hub.requests.length = 0;
      const e = await hubError(pullModel({ ref: 'tiny/llama', cacheDir: cache, endpoint: hub.url }));
      expect(e.code).toBe('BAD_RESPONSE');
      expect(e.message).toContain(JSON.stringify(hostile));
      expect(hub.requests.some((q) => q.path.includes('/resolve/') || q.path.startsWith('/cdn/'))).toBe(false);
    }
    expect(existsSync(cache)).toBe(false);
  });

  it('stops a download at the first byte past the size the tree lists and keeps nothing of it', async () => {
    const cache = cacheDir();
    hub.padded.set(SHARD, 4096);
    const e = await hubError(pullModel({ ref: 'tiny/llama', cacheDir: cache, endpoint: hub.url }));
    expect(e.code).toBe('CHECKSUM');
    expect(e.message).toContain('more than the');
    const dir = join(cache, 'models--tiny--llama', 'snapshots', COMMIT);
    expect(readdirSync(dir).filter((f) => f.startsWith(SHARD))).toEqual([]);
  });

  it('refuses a repo larger than an import takes from the tree sizes, before any weight moves', async () => {
    const total = [...hub.repos.get('tiny/llama')!.files.values()].reduce((n, b) => n + b.length, 0);
    const e = await hubError(pullModel({ ref: 'tiny/llama', cacheDir: cacheDir(), endpoint: hub.url, maxBytes: Math.floor(total / 4) }));
    expect(e.code).toBe('TOO_LARGE');
    expect(hub.requests.some((q) => q.path.includes('/resolve/') || q.path.startsWith('/cdn/'))).toBe(false);
  });

  it('honours HF_ENDPOINT and HF_TOKEN from the environment', async () => {
    const saved = { endpoint: process.env.HF_ENDPOINT, token: process.env.HF_TOKEN };
    try {
      process.env.HF_ENDPOINT = hub.url + '/';
      process.env.HF_TOKEN = 'hf_secret';
      const r = await pullModel({ ref: 'tiny/gated', cacheDir: cacheDir() });
      expect(r.fromCache).toBe(false);
      expect(hub.requests.filter((q) => q.path.startsWith('/api/')).every((q) => q.auth === 'Bearer hf_secret')).toBe(true);
      process.env.HF_ENDPOINT = 'ftp://example.invalid';
      expect((await hubError(pullModel({ ref: 'tiny/gated', cacheDir: cacheDir() }))).message).toMatch(/HF_ENDPOINT/);
    } finally {
      for (const [k, v] of [['HF_ENDPOINT', saved.endpoint], ['HF_TOKEN', saved.token]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
