import { describe, expect, it } from 'vitest';
import { preset } from '../../../../native-models';
import { heldOutFacts, renderModelCard } from '../../../../electron/engine/models/model-card';

const config = preset('nano');
const evaluation = (step: number, success: number, createdAt: number, split = 'heldout') => ({
  step,
  split,
  rehearsals: 0,
  tasks: 8,
  success,
  meanScore: success,
  createdAt,
});
const card = (heldOut: ReturnType<typeof heldOutFacts>) =>
  renderModelCard(
    { run: 'agent (run-1), step 4', method: 'grpo-real', metrics: { reward: 0.5 }, heldOut },
    { format: 'hf', config, mergedLora: false },
  );

describe('model card: held-out evaluation', () => {
  it('tables the stored evaluations of the exported step only, newest first', () => {
    const facts = heldOutFacts(
      4,
      [evaluation(4, 0.25, Date.UTC(2026, 0, 2)), evaluation(2, 0.9, Date.UTC(2026, 0, 3)), evaluation(4, 0.625, Date.UTC(2026, 0, 5), 'ood')],
      undefined,
    );
    const text = card(facts);
    expect(text).toContain('## Held-out evaluation');
    const rows = text.split('\n').filter((l) => /^\| (heldout|ood) /.test(l));
    // Step 2's 90 % measured other weights: it must not be credited to step 4.
    expect(rows).toEqual(['| ood | 0 | 8 | 62.5 % | 0.625 | 2026-01-05 |', '| heldout | 0 | 8 | 25.0 % | 0.250 | 2026-01-02 |']);
    expect(text).not.toContain('90.0 %');
  });

  it("falls back to training's last eval/success at or before the step", () => {
    const facts = heldOutFacts(4, [], { steps: [2, 4, 6], values: [0.1, 0.375, 0.9] });
    expect(facts.trainingEval).toEqual({ step: 4, success: 0.375 });
    expect(card(facts)).toContain('During training, held-out success (`eval/success`) was 37.5 % at step 4.');
  });

  it('says how to evaluate when nothing was measured', () => {
    const text = card(heldOutFacts(4, [], { steps: [], values: [] }, 'envace eval --run run-1 --step 4'));
    expect(text).toContain('Not evaluated on held-out tasks yet: `envace eval --run run-1 --step 4` measures it.');
  });

  it('leaves the section out of cards with no run behind them (imported models)', () => {
    expect(renderModelCard(undefined, { format: 'hf', config, mergedLora: false })).not.toContain('Held-out');
  });
});
