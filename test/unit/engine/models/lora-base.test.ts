// Which base a run's LoRA adapter applies to, where the export puts it, and what it says about it.
import { describe, expect, it } from 'vitest';
import { LoraBaseError, loraBasePlan, type LoraBaseFacts } from '../../../../electron/engine/models/lora-base';
import { SPECIAL_TOKENS } from '../../../../native-models/tokenizer';
import { nanoConfig, smallTokenizer } from './fixtures';

// A run's checkpoint: a tokenizer of V ids; an import of fewer ids is one training grew by the difference.
const tokenizer = smallTokenizer();
const V = tokenizer.vocabSize;
const ADDED = SPECIAL_TOKENS.length;
const grownFacts = (importVocab: number | null): LoraBaseFacts => ({
  runId: 'r1',
  imported: 'hub-nano',
  entry: importVocab === null ? null : { path: '/home/x/models/hub-nano', source: '/downloads/hub-nano', vocabSize: importVocab },
  config: nanoConfig({ vocabSize: V }),
  tokenizer,
});

describe('loraBasePlan', () => {
  it('writes a grown base in base/ and names what grew and which folder does not fit', () => {
    const plan = loraBasePlan(grownFacts(V - ADDED), 'auto');
    expect(plan.writeBase).toBe(true);
    expect(plan.baseModel).toBeUndefined();
    expect(plan.notes![0]).toContain(`imported model "hub-nano" with ${ADDED} embedding rows added for the role markers`);
    expect(plan.notes![0]).toContain(Array.from({ length: ADDED }, (_, i) => tokenizer.idToToken(V - ADDED + i)).join(', '));
    expect(plan.notes![0]).toContain(`vocabulary ${V - ADDED} → ${V}`);
    expect(plan.notes![0]).toMatch(/imported from \(\/downloads\/hub-nano\) lacks those rows: the adapter does not apply to it/);
    expect(plan.notes![1]).toMatch(/base\/ .* adapter_config\.json names it/);
  });

  it('names the imported folder where the vocabulary did not grow, and writes the base only when asked', () => {
    const same = grownFacts(V);
    expect(loraBasePlan(same, 'auto')).toMatchObject({ writeBase: false, baseModel: '/home/x/models/hub-nano' });
    expect(loraBasePlan(same, 'auto').notes!.join(' ')).toMatch(/as imported .*names it by its folder in the data home: \/home\/x\/models\/hub-nano/);
    expect(loraBasePlan(same, 'include').writeBase).toBe(true);
  });

  it('left out on request, a grown base is named with a warning; a removed import can only be exported with its base', () => {
    const omitted = loraBasePlan(grownFacts(V - 2), 'omit');
    expect(omitted).toMatchObject({ writeBase: false, baseModel: '/home/x/models/hub-nano' });
    expect(omitted.notes![1]).toMatch(/not in this folder .* lacks those rows/);
    expect(loraBasePlan(grownFacts(null), 'auto').writeBase).toBe(true);
    expect(() => loraBasePlan(grownFacts(null), 'omit')).toThrow(LoraBaseError);
  });
});
