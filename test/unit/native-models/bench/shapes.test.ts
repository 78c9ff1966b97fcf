// The smollm2 bench shape is the config an import of the real SmolLM2-135M GGUF produces (the weights are
// random, the shape is the model's).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGgufModel } from '../../../../electron/engine/models';
import { BENCH_SHAPES } from '../../../../native-models';
import { smollm2Gguf } from '../../../helpers/smollm2-gguf';

describe('bench shapes', () => {
  it('smollm2 is the imported SmolLM2-135M config', async (ctx) => {
    const fetched = await smollm2Gguf();
    if (!fetched.ok) return ctx.skip(fetched.reason);
    const modelsDir = mkdtempSync(join(tmpdir(), 'bench-shape-'));
    try {
      const entry = await importGgufModel({ ggufFile: fetched.path, modelsDir, name: 'smollm2' });
      expect(entry.config).toEqual(BENCH_SHAPES.smollm2);
    } finally {
      rmSync(modelsDir, { recursive: true, force: true });
    }
  });
});
