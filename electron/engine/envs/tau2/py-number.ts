/**
 * Python's float rounding and printing, for tools whose results tau2 computes in Python:
 * `round(x, 2)` on balances and price differences, `str(float)` in the calculator. Written from
 * Python's documented semantics, so results and observations match tau2's digit for digit.
 */

/**
 * Python's `round(x, 2)`: the nearest two-decimal value to the exact binary value of `x`, ties to
 * even. A tie is exact only when x·100 ends in .5 exactly, i.e. x is an odd multiple of 1/8
 * (0.125 → 0.12, 0.375 → 0.38); everywhere else `toFixed` (exact, nearest) agrees with Python.
 */
export function pyRound2(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 2 ** 52) return x;
  if (Number.isInteger(x * 8) && !Number.isInteger(x * 4)) {
    const lo = Math.floor(x * 100);
    return (lo % 2 === 0 ? lo : lo + 1) / 100;
  }
  const r = Number(x.toFixed(2));
  // Python keeps the sign of a negative value that rounds to zero (round(-0.001, 2) is -0.0).
  return r === 0 && (x < 0 || Object.is(x, -0)) ? -0 : r;
}

/**
 * Python's `str(float)`: the shortest round-tripping digits (as JS), always with a decimal point
 * or exponent ("4.0"), scientific from 1e16 up and below 1e-4, `inf` / `nan`, and "-0.0".
 */
export function pyFloatStr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e16 || abs < 1e-4) {
    const [mant, exp] = x.toExponential().split('e');
    const e = Number(exp);
    return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const s = String(x);
  return s.includes('.') ? s : `${s}.0`;
}
