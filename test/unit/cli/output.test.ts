import { describe, expect, it } from 'vitest';
import { ContractError } from '../../../electron/contract';
import { createDispatcher } from '../../../electron/contract/binding';
import { CliError, EXIT, reportError } from '../../../electron/cli/output';

function report(error: unknown): { code: number; text: string } {
  let text = '';
  const code = reportError(error, (s) => (text += s));
  return { code, text };
}

describe('reportError', () => {
  it('prints an invalid input the contract refused once: its issues are in the message already', async () => {
    const dispatch = createDispatcher({} as never);
    const result = await dispatch('runs.get', { id: 42 });
    if (result.ok) throw new Error('runs.get took a numeric id');
    const { code, text } = report(ContractError.from(result.error));
    expect(code).toBe(EXIT.usage);
    const issue = result.error.issues![0]!.message;
    expect(text.split(issue).length - 1).toBe(1);
    // An issue the message does not name is still shown.
    expect(report(new ContractError('invalid_input', 'bad config', [{ path: 'rollout.k', message: 'must be ≥ 1' }])).text).toBe('envace: bad config (rollout.k: must be ≥ 1)\n');
  });

  it('prints the reason on one line, every further line of the message indented under it, and maps the exit code', () => {
    expect(report(new CliError('bad flag', EXIT.usage))).toEqual({ code: 2, text: 'envace: bad flag\n' });
    expect(report(new ContractError('not_found', 'no run with id x\nmore'))).toEqual({ code: 3, text: 'envace: no run with id x\n  more\n' });
    expect(report(new Error('first\nsecond'))).toEqual({ code: 1, text: 'envace: first\n  second\n' });
    // A task file's problems, one per line, all reach the terminal (it printed "invalid task file f.jsonl:" alone).
    const problems = new CliError('invalid task file f.jsonl:\nline 2: unknown key "argz"\nline 5: tool "x" is not served', EXIT.usage);
    expect(report(problems).text).toBe('envace: invalid task file f.jsonl:\n  line 2: unknown key "argz"\n  line 5: tool "x" is not served\n');
    const long = report(new Error(['head', ...Array.from({ length: 50 }, (_, i) => `problem ${i}`)].join('\n'))).text.split('\n');
    expect(long).toHaveLength(1 + 40 + 1 + 1);
    expect(long.at(-2)).toBe('  … 10 more lines');
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
