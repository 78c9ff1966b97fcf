import { describe, expect, it } from 'vitest';
import type { Segment } from '../../../../electron/engine/algorithms/layout';
import { transitionsOf } from '../../../../electron/engine/algorithms/loops/rwml';
import type { RolloutTurn } from '../../../../electron/engine/algorithms/rollout';
import type { Action } from '../../../../electron/engine/envs/types';

const seg = (role: Segment['role'], text: string): Segment => ({ role, text, ids: [], lead: 1, tail: 1, logprobs: [] });
const call: Action = { kind: 'calls', calls: [{ name: 'get_order_details', arguments: { order_id: '#W1' } }] };

describe('RWML transitions', () => {
  it('score against the whole real observation, not the cut one the stream shows', () => {
    const full1 = '{"order_id":"#W1","status":"pending","items":[{"name":"Smart Watch","price":367.38}]}';
    const full2 = 'Error: Order not found';
    const segments = [seg('prompt', 'system'), seg('act', 'a1'), seg('env', full1.slice(0, 30)), seg('act', 'a2'), seg('env', full2), seg('act', 'done')];
    const turns: RolloutTurn[] = [
      { action: call, observation: full1, real: true },
      { action: call, observation: full2, real: true },
      { action: { kind: 'answer', text: 'done' }, observation: null, real: true },
    ];
    const ts = transitionsOf({ segments, turns });
    expect(ts.map((t) => t.real)).toEqual([full1, full2]);
    expect(ts.map((t) => t.prefix.length)).toEqual([2, 4]);
    // The prompt still shows what the policy saw: the cut observation.
    expect(ts[1].prefix[2].text).toBe(full1.slice(0, 30));
  });
});
