import { describe, expect, it } from 'vitest';
import { observationDiff } from '../../../../renderer/src/views/trajectories/observation-diff';

const text = (parts: { text: string; kind: string }[], kind: string) =>
  parts
    .filter((p) => p.kind === kind)
    .map((p) => p.text)
    .join('');

describe('observationDiff', () => {
  it('diffs JSON structurally, ignoring key order and formatting', () => {
    const diff = observationDiff('{"status":"cancelled","id":"#W1"}', '{ "id": "#W1", "status": "pending" }');
    expect(diff.mode).toBe('json');
    expect(text(diff.parts, 'imagined')).toContain('"cancelled"');
    expect(text(diff.parts, 'real')).toContain('"pending"');
    expect(text(diff.parts, 'same')).toContain('"id": "#W1"');
  });
  it('reports identical JSON with different formatting as all same', () => {
    const diff = observationDiff('{"a":1,"b":[1,2]}', '{"b": [1, 2], "a": 1}');
    expect(diff.parts.every((p) => p.kind === 'same')).toBe(true);
  });
  it('falls back to a word diff for text (and for JSON scalars)', () => {
    const diff = observationDiff('the order was delivered', 'the order was cancelled');
    expect(diff.mode).toBe('words');
    expect(text(diff.parts, 'imagined')).toBe('delivered');
    expect(text(diff.parts, 'real')).toBe('cancelled');
    expect(observationDiff('1', '2').mode).toBe('words');
  });
});
