import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from '../../../electron/cli/commands/serve';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

/** A checkout as `npm ci` leaves it: renderer sources and Vite, with or without the built page. */
function checkout({ built, vite }: { built: boolean; vite: boolean }) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'envace-serve-'));
  roots.push(root);
  fs.mkdirSync(path.join(root, 'renderer'), { recursive: true });
  fs.writeFileSync(path.join(root, 'renderer', 'vite.config.ts'), '');
  if (vite) {
    fs.mkdirSync(path.join(root, 'node_modules', 'vite', 'bin'), { recursive: true });
    fs.writeFileSync(path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), '');
  }
  const dist = path.join(root, 'out', 'renderer');
  if (built) {
    fs.mkdirSync(dist, { recursive: true });
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html>');
  }
  return { root, dist };
}

describe('envace serve on a fresh checkout', () => {
  it('leaves a built page alone', () => {
    const { root, dist } = checkout({ built: true, vite: true });
    const lines: string[] = [];
    const builds: string[] = [];
    expect(ensureRendererBuilt({ root, dist, log: (l) => lines.push(l), build: (r) => (builds.push(r), { ok: true, detail: '' }) })).toBe('present');
    expect(lines).toEqual([]);
    expect(builds).toEqual([]);
  });

  it('builds a missing page once, saying so before it starts', () => {
    const { root, dist } = checkout({ built: false, vite: true });
    const events: string[] = [];
    const result = ensureRendererBuilt({
      root,
      dist,
      log: (l) => events.push(`log: ${l}`),
      build: (r) => {
        events.push(`build ${r}`);
        fs.mkdirSync(dist, { recursive: true });
        fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html>');
        return { ok: true, detail: '' };
      },
    });
    expect(result).toBe('built');
    expect(events).toHaveLength(2);
    expect(events[0]).toMatch(/^log: Building the web page first/);
    expect(events[1]).toBe(`build ${root}`);
  });

  it('says in its first line how to fix a page it could not build', () => {
    const { root, dist } = checkout({ built: false, vite: true });
    const lines: string[] = [];
    expect(ensureRendererBuilt({ root, dist, log: (l) => lines.push(l), build: () => ({ ok: false, detail: 'error: out of disk' }) })).toBe(
      'missing',
    );
    expect(lines[1]).toContain('out of disk');
    expect(lines[1]).toContain('`npm run build:renderer`');

    const noVite = checkout({ built: false, vite: false });
    const said: string[] = [];
    expect(ensureRendererBuilt({ ...noVite, log: (l) => said.push(l), build: () => expect.fail('nothing to build with') })).toBe('missing');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/not built .* Vite is not installed here: the page answers 503 until `npm run build:renderer`/);
  });
});
