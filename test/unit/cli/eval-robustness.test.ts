import { describe, expect, it } from 'vitest';
import type { RobustnessTable } from '../../../electron/contract';
import { robustnessSizes, robustnessText } from '../../../electron/cli/commands/eval';
import { CliError } from '../../../electron/cli/output';

const table = (drop: number): RobustnessTable => ({
  cells: [
    { perturbation: 'none', where: null, tokens: 0, success: 0.62, delta: 0, envCallsPerTask: 1, invalidActionRate: 0 },
    { perturbation: 'filler', where: 'system', tokens: 4, success: 0.62 - drop, delta: -drop, envCallsPerTask: 0.74, invalidActionRate: 0.33 },
    { perturbation: 'memory', where: 'memory', tokens: 190.4, success: 0.62, delta: 0, envCallsPerTask: 0, invalidActionRate: 0 },
  ],
  worstDrop: drop,
  tolerance: 0.05,
  passed: drop <= 0.05,
});

describe('eval --robustness', () => {
  it('takes no value (the default sizes) or a comma list, and refuses anything else as a usage error', () => {
    expect(robustnessSizes(undefined)).toBeUndefined();
    expect(robustnessSizes(true)).toBe(true);
    expect(robustnessSizes('1, 4,64')).toEqual([1, 4, 64]);
    for (const bad of ['0', '1,x', '1.5', '1000', '1,2,3,4,5,6,7,8,9']) expect(() => robustnessSizes(bad)).toThrow(CliError);
  });

  it('prints one row per cell with its Δ in points, and the verdict', () => {
    const failing = robustnessText(table(0.62)).split('\n');
    expect(failing[0]).toMatch(/^PERTURBATION\s+WHERE\s+TOKENS\s+SUCCESS\s+Δ POINTS\s+ENV CALLS\/TASK\s+INVALID$/);
    expect(failing[1]!.split(/\s+/)).toEqual(['none', '-', '0', '62.0%', '-', '1.00', '0.0%']);
    expect(failing[2]!.split(/\s+/)).toEqual(['filler', 'system', '4', '0.0%', '-62.0', '0.74', '33.0%']);
    expect(failing[3]!.split(/\s+/).slice(0, 3)).toEqual(['memory', 'memory', '190']);
    expect(failing.at(-1)).toBe('robustness: FAIL (worst drop 62.0 points, more than 5)');
    expect(robustnessText(table(0.02)).split('\n').at(-1)).toMatch(/^robustness: PASS .*worst drop 2\.0\)$/);
  });
});
