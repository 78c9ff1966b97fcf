import { describe, expect, it } from 'vitest';
import { trainTokenizer } from '../../../../native-models/tokenizer';
import { demoCorpus, expertTranscripts, fitDemonstration } from '../../../../electron/engine/algorithms/demos';
import { specialIds } from '../../../../electron/engine/algorithms/layout';
import { RetailEnv } from '../../../../electron/engine/envs/retail/env';

describe('fitting a demonstration to the context', () => {
  it('keeps one whose prompt and first act fit, and drops one that does not with the token count and the context in words', async () => {
    const env = new RetailEnv({ worldMode: 'procedural', worldSize: 5, taskMix: 'lookups', counts: { train: 2, heldout: 1, ood: 1 } });
    const [t] = await expertTranscripts(env, env.tasks('train').map((r) => env.task(r.id)), 'none', 0);
    const tok = trainTokenizer(demoCorpus([t]), { vocabSize: 400 });
    const sp = specialIds(tok);
    const roomy = fitDemonstration(tok, sp, t, 256, 4096);
    if (!('demo' in roomy)) throw new Error(`expected it to fit: ${roomy.dropped}`);
    // The prompt, the first act and the observation that followed it: the least SFT can learn from.
    const act = roomy.demo.segments.findIndex((s) => s.role === 'act');
    const end = roomy.demo.segments[act + 1]?.role === 'env' ? act + 2 : act + 1;
    const firstActEnd = roomy.demo.segments.slice(0, end).reduce((n, s) => n + s.ids.length, 0);
    // One token short of the prompt and first turn: dropped, and the reason says by how much.
    const tight = fitDemonstration(tok, sp, t, 256, firstActEnd - 1);
    expect(tight).toEqual({ dropped: expect.stringMatching(new RegExp(`^too long: the prompt and first turn take ${firstActEnd} tokens > context ${firstActEnd - 1} `)) });
    expect('demo' in fitDemonstration(tok, sp, t, 256, firstActEnd)).toBe(true);
  });
});
