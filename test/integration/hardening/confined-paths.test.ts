// Paths a run will read, named from the workbench window (IPC or WebSocket), stay inside the data
// home; the command line (in-process) runs as its user and may name any file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testEngine } from '../../helpers/engine';

const { engine, home, cleanup } = testEngine();
afterAll(cleanup);

// The test engine creates runs on its contract-test env; pre-flight asks the env registry, where mock is
// real, so it goes on to the checks that would record the demonstrations.
const config = (demonstrationsFile: string, env = 'contract-test') => ({ env, algo: 'sft+envace', sft: { steps: 2, demonstrations: 'file', demonstrationsFile } });

describe('sft.demonstrationsFile is confined like every other path', () => {
  it('over the window transports a file outside the home is refused at runs.create and in pre-flight, without echoing it', async () => {
    for (const transport of ['websocket', 'ipc'] as const) {
      const created = await engine.dispatch('runs.create', { config: config('/etc/passwd') }, { transport });
      expect(created.ok).toBe(false);
      if (created.ok) return;
      expect(created.error.code).toBe('invalid_input');
      expect(created.error.message).toMatch(/must be inside/);
      expect(created.error.message).not.toMatch(/root:/);
      const checked = await engine.dispatch('runs.preflight', { config: config('/etc/passwd', 'mock') }, { transport });
      expect(checked.ok && checked.value).toMatchObject({ ok: false });
      // Refused is never opened: no later check reads the file (it once said "/etc/passwd:1: not JSON").
      const details = checked.ok ? (checked.value as { checks: Array<{ detail: string }> }).checks.map((c) => c.detail) : [];
      expect(details.filter((d) => /passwd:\d|not JSON|recording the demonstrations failed/.test(d))).toEqual([]);
      expect(details.some((d) => /must be inside/.test(d))).toBe(true);
    }
    expect((await engine.dispatch('runs.list', {}, { transport: 'websocket' })).ok && true).toBe(true);
  });

  it('a file inside the home is accepted from the window, and the command line may name one anywhere', async () => {
    const inside = path.join(home, 'demos.jsonl');
    fs.writeFileSync(inside, '');
    expect((await engine.dispatch('runs.create', { config: config(inside) }, { transport: 'websocket' })).ok).toBe(true);
    const elsewhere = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'envace-demos-')), 'demos.jsonl');
    fs.writeFileSync(elsewhere, '');
    expect((await engine.dispatch('runs.create', { config: config(elsewhere) }, { transport: 'websocket' })).ok).toBe(false);
    expect((await engine.dispatch('runs.create', { config: config(elsewhere) }, { transport: 'in-process' })).ok).toBe(true);
    fs.rmSync(path.dirname(elsewhere), { recursive: true, force: true });
  });
});
