/**
 * The retail `calculate` tool's arithmetic: numbers, + - * /, parentheses and spaces, parsed by
 * a small recursive-descent parser (never `eval`). Depth and length are bounded.
 */
import { ToolError } from '../tau2/tools';

const MAX_EXPRESSION = 500;
const MAX_DEPTH = 50;

export function calculate(expression: string): number {
  if (!/^[0-9+\-*/(). ]*$/.test(expression)) throw new ToolError('Invalid characters in expression');
  if (expression.length > MAX_EXPRESSION) throw new ToolError(`Expression too long (limit ${MAX_EXPRESSION} characters)`);
  const src = expression.replace(/ /g, '');
  let i = 0;
  let depth = 0;

  const fail = (): never => {
    throw new ToolError(`Invalid expression: ${expression}`);
  };
  const expr = (): number => {
    let v = term();
    while (src[i] === '+' || src[i] === '-') v = src[i++] === '+' ? v + term() : v - term();
    return v;
  };
  const term = (): number => {
    let v = factor();
    while (src[i] === '*' || src[i] === '/') {
      const op = src[i++];
      const r = factor();
      if (op === '/' && r === 0) throw new ToolError('division by zero');
      v = op === '*' ? v * r : v / r;
    }
    return v;
  };
  const factor = (): number => {
    if (src[i] === '+' || src[i] === '-') {
      if (++depth > MAX_DEPTH) fail();
      const sign = src[i++] === '-' ? -1 : 1;
      const v = sign * factor();
      depth--;
      return v;
    }
    if (src[i] === '(') {
      if (++depth > MAX_DEPTH) fail();
      i++;
      const v = expr();
      if (src[i++] !== ')') fail();
      depth--;
      return v;
    }
    const m = /^(\d+\.?\d*|\.\d+)/.exec(src.slice(i));
    if (!m) return fail();
    i += m[0].length;
    return Number(m[0]);
  };

  const value = expr();
  if (i !== src.length) fail();
  return value;
}
