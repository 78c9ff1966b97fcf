// A Policy whose outputs are scripted text: exercises the rollout machinery (layout, env boundary,
// rewards, plan following) exactly, without depending on what a tiny model happens to sample.
import { trainTokenizer } from '../../../native-models/tokenizer';
import type { Generation } from '../../../native-models';
import { specialIds } from '../../../electron/engine/algorithms/layout';
import type { GenerateRequest, Policy } from '../../../electron/engine/algorithms/policy';

export const LOGPROB = -0.25;

export function scriptedPolicy(script: {
  /** `ids` is the prompt as the policy got it (a positional policy reads it by offset). */
  act: (prompt: string, ids: readonly number[]) => string;
  obs: (prompt: string, ids: readonly number[]) => string;
}): Policy & { calls: { act: number; obs: number } } {
  const tokenizer = trainTokenizer(['<tool_call>{"name": "get_order_details", "arguments": {}}</tool_call> <answer>pending</answer>'], {
    vocabSize: 300,
  });
  const sp = specialIds(tokenizer);
  const calls = { act: 0, obs: 0 };
  return {
    tokenizer,
    specials: sp,
    maxSeqLen: 4096,
    step: 0,
    calls,
    async generate(requests: readonly GenerateRequest[]): Promise<Generation[]> {
      return requests.map((r) => {
        const isAct = r.prompt[r.prompt.length - 1] === sp.act;
        if (isAct) calls.act++;
        else calls.obs++;
        const text = (isAct ? script.act : script.obs)(tokenizer.decode(r.prompt), r.prompt);
        const tokens = [...tokenizer.encode(text, { parseSpecial: false }), sp.end].slice(0, r.maxNewTokens);
        return { tokens, logprobs: tokens.map(() => LOGPROB), finishReason: tokens[tokens.length - 1] === sp.end ? 'stop' : 'length' };
      });
    },
    async logprobs(rows: number[][]) {
      return rows.map((r) => r.map(() => LOGPROB));
    },
    async trainStep() {
      throw new Error('scripted policy does not train');
    },
    save() {},
    load() {},
    async release() {},
  };
}
