import { describe, expect, it } from 'vitest';
import { isErrorObservation } from '../../../../electron/engine/envs/error-observation';

describe('isErrorObservation: one rule for a refused call', () => {
  it('reads our envs\u2019 wording and a user server\u2019s, in any case, after leading space', () => {
    for (const text of ['Error: user not found', 'error: no such order', 'ERROR order #W1 is not pending', '  \nError (404)', 'Error'])
      expect(isErrorObservation(text), text).toBe(true);
  });

  it('does not take a word that merely starts with "error", or an error mentioned later, for a refusal', () => {
    for (const text of ['Errors found: none', 'Errorless run', '{"status": "error"}', 'the order has an error', ''])
      expect(isErrorObservation(text), text).toBe(false);
  });
});
