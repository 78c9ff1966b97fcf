import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, RunConfig } from '../../../electron/contract';
import { TOKENIZER_DIR } from '../../../electron/engine/algorithms/context';
import { inProcessTransport } from '../../../electron/engine/in-process';
import { trainTokenizer } from '../../../native-models/tokenizer/text-tokenizer';
import { testEngine } from '../../helpers/engine';

let env: ReturnType<typeof testEngine> | undefined;
afterEach(async () => {
  await env?.cleanup();
  env = undefined;
});

describe('trajectories.get token texts', () => {
  it("decodes each token id with the run's tokenizer from its checkpoint", async () => {
    env = testEngine();
    const store = env.engine.services.store;
    store.runs.insert({ id: 'r1', config: RunConfig.parse({ env: 'contract-test' }) });
    const tokenizer = trainTokenizer(['get the users', 'get the orders', 'the users list'], { vocabSize: 300 });
    const checkpoint = path.join(env.home, 'runs', 'r1', 'checkpoints', 'step-1');
    fs.mkdirSync(path.join(checkpoint, TOKENIZER_DIR), { recursive: true });
    tokenizer.save(path.join(checkpoint, TOKENIZER_DIR));
    store.runs.addCheckpoint('r1', 1, checkpoint);
    const ids = tokenizer.encode('get the users');
    const rolloutId = store.rollouts.insert({
      runId: 'r1', step: 1, taskId: 't', env: 'contract-test', mode: 'real', reward: 1, success: true, checklist: null, envCalls: 0, envWallMs: 0, tokens: ids.length,
      turns: [{ role: 'prompt', text: 'go' }, { role: 'act', text: 'get the users', tokenIds: ids, logprobs: ids.map(() => -1) }],
    });
    const api = createClient(inProcessTransport(env.engine));
    const rollout = await api.call('trajectories.get', { id: rolloutId });
    const act = rollout.turns[1]!;
    expect(act.tokenTexts).toHaveLength(ids.length);
    expect(act.tokenTexts!.join('')).toBe('get the users');
    expect(rollout.turns[0]!.tokenTexts).toBeUndefined();
  });
});
