/** Bad input to an algorithm (a knob out of range, a mismatched batch): a typed error, never a crash. */
export class AlgorithmError extends Error {
  override name = 'AlgorithmError';
}
