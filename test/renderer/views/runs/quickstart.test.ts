import { describe, expect, it } from 'vitest';
import { quickstartCommand, quickstartEnv } from '../../../../renderer/src/views/runs/quickstart';

describe('quickstart', () => {
  it('uses the first registered environment, else retail', () => {
    expect(quickstartEnv(['files', 'retail'])).toBe('files');
    expect(quickstartEnv([])).toBe('retail');
  });
  it('prints the equivalent envace train line: without --algo it trains the recommended recipe', () => {
    expect(quickstartCommand('household')).toBe('npx envace train --env household --preset nano');
    expect(quickstartCommand('retail', { imported: 'qwen' })).toBe('npx envace train --env retail --model qwen');
  });
});
