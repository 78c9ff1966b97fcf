import { describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { quickstartCommand, quickstartConfig } from '../../../../renderer/src/views/runs/quickstart';

describe('quickstart', () => {
  it('uses the first registered environment, else retail, with the tiny preset and sft+envace', () => {
    expect(quickstartConfig(['files', 'retail'])).toEqual({ env: 'files', algo: 'sft+envace', model: { preset: 'tiny' } });
    expect(quickstartConfig([]).env).toBe('retail');
    expect(RunConfig.safeParse(quickstartConfig(['files'])).success).toBe(true);
  });
  it('prints the equivalent envace train line', () => {
    expect(quickstartCommand(quickstartConfig(['household']))).toBe('envace train --env household --algo sft+envace --preset tiny');
  });
});
