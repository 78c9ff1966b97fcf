import { describe, expect, it } from 'vitest';
import { quickstartCommand, quickstartEnv } from '../../../../renderer/src/views/runs/quickstart';

describe('quickstart', () => {
  it('uses retail where registered (held-out tasks about unseen entities), else the first environment', () => {
    expect(quickstartEnv(['mock', 'files', 'retail'])).toBe('retail');
    expect(quickstartEnv(['files', 'household'])).toBe('files');
    expect(quickstartEnv([])).toBe('retail');
  });
  it('prints the equivalent envace train line: without --algo it trains the recommended recipe', () => {
    expect(quickstartCommand('household')).toBe('npx envace train --env household --preset tiny');
    expect(quickstartCommand('retail', undefined, true)).toBe('npx envace train --env retail --preset tiny --quick');
    expect(quickstartCommand('retail', { imported: 'qwen' })).toBe('npx envace train --env retail --model qwen');
  });
});
