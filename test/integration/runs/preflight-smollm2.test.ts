// Pre-flight counts an imported model's prompts as its run writes them: in the model's own chat template,
// each bfcl task's functions in the Hermes tool block (SmolLM2's template ignores tools), against the
// context the run cuts the model to (contextTokens), not the model's own 8,192.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunConfig } from '../../../electron/contract';
import { importGgufModel } from '../../../electron/engine/models/gguf-import';
import { recommendedRecipe } from '../../../electron/engine/runs/recipes';
import { preflight } from '../../../electron/engine/runs/preflight';
import { patience } from '../../helpers/patience';
import { type Fetched, smollm2Gguf } from '../../helpers/smollm2-gguf';

let fetched: Fetched;
let root = '';

beforeAll(async () => {
  fetched = await smollm2Gguf();
  if (!fetched.ok) return;
  root = mkdtempSync(join(tmpdir(), 'envace-preflight-smollm2-'));
  await importGgufModel({ ggufFile: fetched.path, name: 'smollm2', modelsDir: join(root, 'models') });
}, patience(300_000));
afterAll(() => root && rmSync(root, { recursive: true, force: true }));

const config = (contextTokens: number) => RunConfig.parse({ ...recommendedRecipe('bfcl', { imported: 'smollm2' }).config, contextTokens });

describe("pre-flight of SmolLM2 on bfcl", () => {
  it('counts the prompts with their tool blocks in the chat template, against contextTokens', async (ctx) => {
    if (!fetched.ok) return ctx.skip(fetched.reason);
    const r = await preflight(config(512), join(root, 'models'));
    const context = r.checks.find((c) => c.name === 'context')!;
    const longest = Number(/longest (\d+)/.exec(context.detail)?.[1]);
    // The longest bfcl train prompt with its functions' full schemas is well past 512 tokens (it was
    // counted as a few dozen before: no tools, our markers).
    expect(longest).toBeGreaterThan(512);
    expect(context.detail).toContain("of 512 tokens");
    expect(context.detail).toContain("smollm2's tokenizer and chat template");
    const demos = r.checks.find((c) => c.name === 'demonstrations fit')!;
    expect(demos.detail).toMatch(/dropped/);
    expect(demos.detail).toContain('a larger contextTokens (now 512; smollm2 has 8192)');
  }, patience(300_000));
});
