import { describe, expect, it } from 'vitest';
import { ContractError } from '../../../electron/contract';
import { CliError, EXIT, reportError } from '../../../electron/cli/output';

function report(error: unknown): { code: number; text: string } {
  let text = '';
  const code = reportError(error, (s) => (text += s));
  return { code, text };
}

describe('reportError', () => {
  it('prints one line with the reason and maps the exit code', () => {
    expect(report(new CliError('bad flag', EXIT.usage))).toEqual({ code: 2, text: 'envace: bad flag\n' });
    expect(report(new ContractError('not_found', 'no run with id x\nmore'))).toEqual({ code: 3, text: 'envace: no run with id x\n' });
    expect(report(new Error('first\nsecond'))).toEqual({ code: 1, text: 'envace: first\n' });
  });

  it('says what was thrown when it is not a string message (it used to fail with "split is not a function")', () => {
    const odd = Object.assign(new Error('x'), { message: { code: -32602, detail: 'bad params' } });
    expect(report(odd)).toEqual({ code: 1, text: 'envace: {"code":-32602,"detail":"bad params"}\n' });
    expect(report({ reason: 'plain object' })).toEqual({ code: 1, text: 'envace: {"reason":"plain object"}\n' });
    expect(report(Symbol('s'))).toEqual({ code: 1, text: 'envace: Symbol(s)\n' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(report(cyclic)).toEqual({ code: 1, text: 'envace: [object Object]\n' });
  });
});
