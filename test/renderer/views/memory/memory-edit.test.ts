import { describe, expect, it } from 'vitest';
import { parseMemoryJson } from '../../../../renderer/src/views/memory/memory-edit';

const valid = {
  rehearsals: [{ plan: [{ name: 'find_order', arguments: { orderId: '#W1' } }], predictedObservations: ['{"status":"pending"}'], answer: 'pending', confidence: -0.4, problems: [] }],
  consensus: { plan: [{ name: 'find_order', arguments: { orderId: '#W1' } }], answer: 'pending' },
  notes: 'check the id format',
};

describe('parseMemoryJson', () => {
  it('accepts a memory that fits the contract', () => {
    const result = parseMemoryJson(JSON.stringify(valid));
    expect(result).toEqual({ ok: true, value: valid });
  });
  it('reports JSON syntax errors before schema issues', () => {
    const result = parseMemoryJson('{"rehearsals": [');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]).toMatch(/^not valid JSON: /);
  });
  it('names the path of each schema issue', () => {
    const bad = { ...valid, rehearsals: [{ ...valid.rehearsals[0], confidence: 0.5 }], extra: 1 };
    const result = parseMemoryJson(JSON.stringify(bad));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues.some((i) => i.startsWith('rehearsals.0.confidence:'))).toBe(true);
      expect(result.issues.some((i) => i.includes('extra'))).toBe(true);
    }
  });
});
