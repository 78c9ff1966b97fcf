// What the data home must never lose: a hostile id cannot name a folder outside `mcp/`, a corrupt
// registry is kept aside instead of overwritten, and what a killed process left is tidied by the
// next owner (and only what is provably dead).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { folderNameProblem } from '../../../electron/contract';
import { createEngine } from '../../../electron/engine/host';
import { homePaths } from '../../../electron/engine/home';
import { processStartTime } from '../../../electron/engine/home/process-identity';
import { childFolder } from '../../../electron/engine/home/user-paths';
import { readUserEnvs, USER_ENVS_FILE } from '../../../electron/engine/envs/user-envs';
import { tempHome } from '../../helpers/engine';

const FIXTURE = fileURLToPath(new URL('./envs/mcp/fixture-server.mjs', import.meta.url));
const homes: string[] = [];
afterAll(() => homes.forEach((h) => fs.rmSync(h, { recursive: true, force: true })));

/** A home with a run, an export and a model folder, and a folder beside the home: what `../x` ids aimed at. */
function populatedHome(): { home: string; victims: string[] } {
  const root = tempHome('envace-safety-');
  homes.push(root);
  const home = path.join(root, 'home');
  const victims = [path.join(home, 'runs', 'run-1'), path.join(home, 'exports', 'e-1'), path.join(home, 'models', 'm-1'), path.join(root, 'victim')];
  for (const dir of victims) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'keep.txt'), 'precious');
  }
  return { home, victims };
}

function taskFile(dir: string): string {
  const file = path.join(dir, 'tasks.jsonl');
  fs.writeFileSync(file, `${JSON.stringify({ id: 't', instruction: 'Echo hi.', checklist: [{ kind: 'call', weight: 1, name: 'echo' }], gold: { calls: [{ name: 'echo', arguments: { text: 'hi' } }] } })}\n`);
  return file;
}

const HOSTILE = ['..', '.', '../runs', '../exports', '../../victim', 'a/b', 'a\\b', '/etc', '.hidden', '-rf', 'x.', 'CON', 'nul.txt', 'x.tmp-ab12', '', 'a'.repeat(65), 'é', 'a b', 'a\u0000b', '%2e%2e'];

describe('one folder-name rule for user-named ids', () => {
  it('accepts ordinary names and refuses every separator, dot segment and special name', () => {
    for (const ok of ['sqlite', 'my-server_2', 'v1.2', '_private', 'A9']) expect(folderNameProblem(ok, 'an id')).toBeUndefined();
    for (const bad of HOSTILE) expect(folderNameProblem(bad, 'an id'), JSON.stringify(bad)).toBeDefined();
  });

  it('fuzz: whatever the rule accepts resolves to a direct child of its parent', () => {
    const alphabet = ['.', '..', '/', '\\', 'a', 'Z', '0', '_', '-', ' ', '\u0000', ':', '~', '%'];
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const parent = path.resolve('/home/u/.envace/mcp');
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const name = Array.from({ length: 1 + (next() % 8) }, () => alphabet[next() % alphabet.length]).join('');
      if (folderNameProblem(name, 'an id') !== undefined) {
        expect(() => childFolder(parent, name, 'an id')).toThrow();
        continue;
      }
      accepted++;
      const child = childFolder(parent, name, 'an id');
      expect(path.dirname(child)).toBe(parent);
      expect(path.basename(child)).toBe(name);
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it('envs.addMcp and envs.remove with hostile ids are refused as invalid input, and nothing anywhere is removed', async () => {
    const { home, victims } = populatedHome();
    const engine = createEngine({ home });
    try {
      const tasks = taskFile(path.dirname(home));
      for (const id of HOSTILE) {
        const added = await engine.dispatch('envs.addMcp', { id, server: { command: process.execPath, args: [FIXTURE] }, taskFile: tasks }, { transport: 'in-process' });
        expect(added, JSON.stringify(id)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
        const removed = await engine.dispatch('envs.remove', { id }, { transport: 'in-process' });
        expect(removed.ok, JSON.stringify(id)).toBe(false);
      }
      for (const dir of victims) expect(fs.readFileSync(path.join(dir, 'keep.txt'), 'utf8'), dir).toBe('precious');
    } finally {
      await engine.close();
    }
  });

  it('a hand-edited registry entry with id "../runs" is reported invalid and its removal touches only the file', async () => {
    const { home, victims } = populatedHome();
    fs.writeFileSync(path.join(home, USER_ENVS_FILE), JSON.stringify([{ id: '../runs', server: { command: 'x' }, taskFile: '/x' }]));
    const { entries, problems } = readUserEnvs(homePaths(home));
    expect(entries).toEqual([]);
    expect(problems[0]).toMatchObject({ id: '../runs', message: expect.stringContaining('an MCP environment id') });
    const engine = createEngine({ home });
    try {
      // The entry goes from the file (the way out of a bad entry); no folder is cleared for it.
      expect(await engine.dispatch('envs.remove', { id: '../runs' }, { transport: 'in-process' })).toEqual({ ok: true, value: { ok: true } });
      expect(JSON.parse(fs.readFileSync(path.join(home, USER_ENVS_FILE), 'utf8'))).toEqual([]);
    } finally {
      await engine.close();
    }
    for (const dir of victims) expect(fs.existsSync(path.join(dir, 'keep.txt'))).toBe(true);
  });
});

describe('the MCP registry keeps what it holds', () => {
  it('a corrupt mcp-servers.json is kept aside, reported, and never overwritten by a registration', async () => {
    const { home } = populatedHome();
    const corrupt = `[${Array.from({ length: 9 }, (_, i) => JSON.stringify({ id: `srv-${i}`, server: { command: 'x' }, taskFile: '/x' })).join(',')}, {"id": "cut sh`;
    fs.writeFileSync(path.join(home, USER_ENVS_FILE), corrupt);
    const engine = createEngine({ home });
    try {
      const added = await engine.dispatch('envs.addMcp', { id: 'echo-srv', server: { command: process.execPath, args: [FIXTURE] }, taskFile: taskFile(path.dirname(home)) }, { transport: 'in-process' });
      expect(added.ok).toBe(true);
      const aside = fs.readdirSync(home).filter((n) => n.startsWith(`${USER_ENVS_FILE}.corrupt-`));
      expect(aside).toHaveLength(1);
      expect(fs.readFileSync(path.join(home, aside[0]!), 'utf8')).toBe(corrupt);
      const listed = await engine.dispatch('envs.list', {}, { transport: 'in-process' });
      expect(listed).toMatchObject({ ok: true, value: { problems: [expect.stringContaining(aside[0]!)] } });
      expect(readUserEnvs(homePaths(home)).entries.map((e) => e.id)).toEqual(['echo-srv']);
    } finally {
      await engine.close();
    }
  });

  it('removing one entry keeps the entries this version cannot read exactly as they were', async () => {
    const { home } = populatedHome();
    const engine = createEngine({ home });
    try {
      const added = await engine.dispatch('envs.addMcp', { id: 'echo-srv', server: { command: process.execPath, args: [FIXTURE] }, taskFile: taskFile(path.dirname(home)) }, { transport: 'in-process' });
      expect(added.ok).toBe(true);
      const file = path.join(home, USER_ENVS_FILE);
      const future = { id: 'from-a-newer-version', server: { command: 'x' }, taskFile: '/x', somethingNew: true };
      fs.writeFileSync(file, JSON.stringify([...JSON.parse(fs.readFileSync(file, 'utf8')), future]));
      expect(await engine.dispatch('envs.remove', { id: 'echo-srv' }, { transport: 'in-process' })).toEqual({ ok: true, value: { ok: true } });
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual([future]);
    } finally {
      await engine.close();
    }
  });
});

describe('leftovers of killed processes, tidied by the next owner', () => {
  const deadPid = () => Number(String(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout));

  it('an unregistered mcp/<id> folder (a killed add-mcp), dead episodes and a cut-short registry write go; live episodes stay', async () => {
    const { home } = populatedHome();
    const engine = createEngine({ home });
    const added = await engine.dispatch('envs.addMcp', { id: 'echo-srv', server: { command: process.execPath, args: [FIXTURE] }, taskFile: taskFile(path.dirname(home)) }, { transport: 'in-process' });
    expect(added.ok).toBe(true);
    await engine.close();
    const mcp = path.join(home, 'mcp');
    fs.mkdirSync(path.join(mcp, 'half-added', 'seed'), { recursive: true });
    fs.writeFileSync(path.join(mcp, 'half-added', 'tasks.jsonl'), 'x'.repeat(1024));
    const episodes = path.join(mcp, 'echo-srv', 'episodes');
    const dead = path.join(episodes, `ep-p${deadPid()}sx-abc123`);
    const legacy = path.join(episodes, 'ep-Xy12ab');
    const live = path.join(episodes, `ep-p${process.pid}s${processStartTime(process.pid) ?? 'x'}-liv123`);
    for (const dir of [dead, legacy, live]) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(home, `${USER_ENVS_FILE}.tmp-0badf00d`), '[');
    const next = createEngine({ home });
    try {
      expect(next.writable).toBe(true);
      expect(fs.existsSync(path.join(mcp, 'half-added'))).toBe(false);
      expect(fs.existsSync(dead)).toBe(false);
      expect(fs.existsSync(legacy)).toBe(false);
      expect(fs.existsSync(live)).toBe(true);
      expect(fs.existsSync(path.join(mcp, 'echo-srv', 'tasks.jsonl'))).toBe(true);
      expect(fs.existsSync(path.join(home, `${USER_ENVS_FILE}.tmp-0badf00d`))).toBe(false);
    } finally {
      await next.close();
    }
  });

  it('while the registry cannot be read, no mcp/ folder is touched (any may be one of its entries)', async () => {
    const { home } = populatedHome();
    fs.mkdirSync(path.join(home, 'mcp', 'maybe-registered'), { recursive: true });
    fs.writeFileSync(path.join(home, USER_ENVS_FILE), '[{"id": "maybe-regis');
    const engine = createEngine({ home });
    await engine.close();
    expect(fs.existsSync(path.join(home, 'mcp', 'maybe-registered'))).toBe(true);
  });
});
