import { describe, expect, it } from 'vitest';
import { trainTokenizer } from '../../../../native-models/tokenizer';
import { memoryRoom, promptSegments, specialIds, systemText } from '../../../../electron/engine/algorithms/layout';
import type { Policy } from '../../../../electron/engine/algorithms/policy';
import { memoryFitFor, type RolloutSettings } from '../../../../electron/engine/algorithms/rollout';
import { chooseCommit } from '../../../../electron/engine/algorithms/test-time';
import type { Task, ToolEnv } from '../../../../electron/engine/envs/types';

const tok = trainTokenizer(['check every user and every task before acting, then call get_users'], { vocabSize: 300 });
const sp = specialIds(tok);
// Only what the prompt layout reads of a policy and an env.
const policy = { tokenizer: tok, specials: sp, maxSeqLen: 120 } as unknown as Policy;
const env = { description: 'a mock world', tools: () => [] } as unknown as ToolEnv;
const task = { id: 't1', instruction: 'call get_users', maxTurns: 4 } as unknown as Task;
const settings: RolloutSettings = { maxTurns: 4, maxTokensPerTurn: 20, maxObservationTokens: 10, temperature: 0, topP: 1, pReal: 1, toolSchemas: 'full', rehearsePrompt: 'inline', memoryTokens: 8 };

describe('a memory against the room left, and the commit mode chosen to fit', () => {
  it('the room is what the commit prompt keeps of the memory', () => {
    for (const memory of ['call get_users', 'check every user and every task before acting. '.repeat(20)]) {
      const fit = memoryFitFor(policy, env, task, settings, memory);
      const prompt = promptSegments(tok, sp, { system: systemText(env.description, [], settings.toolSchemas), instruction: task.instruction, memory }, settings.maxObservationTokens, {
        maxSeqLen: policy.maxSeqLen,
        reserve: settings.maxTokensPerTurn + settings.maxObservationTokens,
        memoryTokens: settings.memoryTokens,
      });
      const block = prompt.find((s) => s.role === 'memory')!;
      expect(block.ids.length - 2).toBe(Math.min(fit.total, fit.room));
    }
  });

  it('a long memory does not fit; a short one does', () => {
    expect(memoryFitFor(policy, env, task, settings, 'call get_users').total).toBeLessThanOrEqual(memoryFitFor(policy, env, task, settings, 'x').room);
    const long = memoryFitFor(policy, env, task, settings, 'check every user and every task before acting. '.repeat(20));
    expect(long.total).toBeGreaterThan(long.room);
  });

  it('the reserved memoryTokens hold even where a whole turn would leave none, and never past the context', () => {
    expect(memoryRoom(100, { maxSeqLen: 120, reserve: 60, memoryTokens: 8 })).toBe(8);
    expect(memoryRoom(115, { maxSeqLen: 120, reserve: 60, memoryTokens: 8 })).toBe(3);
    expect(memoryRoom(130, { maxSeqLen: 120, reserve: 60, memoryTokens: 8 })).toBe(0);
    expect(memoryRoom(10, { maxSeqLen: 120, reserve: 60 })).toBe(48);
  });

  it('fits: memory in the prompt', () => {
    expect(chooseCommit({ total: 40, room: 64 }, 2)).toMatchObject({ cut: false, commit: 'prompt' });
    expect(chooseCommit({ total: 64, room: 64 }, 0)).toMatchObject({ cut: false, commit: 'prompt' });
  });

  it('does not fit: plan commit chosen when there is a consensus plan, and the reason says so', () => {
    const c = chooseCommit({ total: 513, room: 64 }, 3);
    expect(c).toMatchObject({ total: 513, room: 64, cut: true, commit: 'plan' });
    expect(c.reason).toMatch(/^memory 513 tokens, room 64: the memory will be cut to its last 64 tokens; plan commit chosen/);
  });

  it('does not fit and no plan to follow: stays prompt, cut to its end', () => {
    const c = chooseCommit({ total: 513, room: 64 }, 0);
    expect(c).toMatchObject({ cut: true, commit: 'prompt' });
    expect(c.reason).toContain('no calls');
    expect(chooseCommit({ total: 10, room: 0 }, 1).reason).toContain('left out');
  });
});
