// `envace bench --model / --shape`: the choice of what to measure is checked before anything is measured.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runEnvace } from '../../helpers/cli';
import { tempHome } from '../../helpers/engine';

const home = tempHome('envace-cli-bench-');
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe('envace bench at a real size', () => {
  it('refuses an unknown shape, both sources at once and a bad thread count as usage errors', async () => {
    const shape = await runEnvace(home, 'bench', '--shape', 'gpt5');
    expect(shape.code).toBe(2);
    expect(shape.stderr).toContain('unknown shape gpt5 (known: smollm2)');
    const both = await runEnvace(home, 'bench', '--shape', 'smollm2', '--model', 'm');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give --model or --shape, not both');
    const threads = await runEnvace(home, 'bench', '--shape', 'smollm2', '--thread-counts', '1,0');
    expect(threads.code).toBe(2);
    expect(threads.stderr).toContain('--thread-counts must be a positive integer');
  });

  it('names the data home a missing model was looked for in', async () => {
    const r = await runEnvace(home, 'bench', '--model', 'absent', '--home', home);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('no model named "absent"');
  });
});
