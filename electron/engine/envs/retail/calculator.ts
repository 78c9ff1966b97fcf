/**
 * The retail `calculate` tool. tau2 checks the characters ("0123456789+-*\/(). "), then returns
 * `str(round(float(eval(expression)), 2))`. This is that Python arithmetic written out as a small
 * recursive-descent parser (never `eval`): ints are exact (BigInt), floats are doubles, and
 * `**`, `//`, unary signs, `()` (an empty tuple) and "calling" a number behave and fail as Python
 * does, with Python's messages. Syntax errors use Python's common wordings; its rarer, more
 * specific ones are not reproduced. Length, depth and integer size are bounded (tau2 has no bounds).
 */
import { pyFloatStr, pyRound2 } from '../tau2/py-number';
import { ToolError } from '../tau2/tools';

const MAX_EXPRESSION = 500;
const MAX_DEPTH = 50;
/** Integers beyond this many bits could not become a float anyway; refuse before BigInt grows huge. */
const MAX_INT_BITS = 1 << 14;

/** A Python value the expression can produce. `complex` only arises from a negative base ** a fraction. */
type Py = { t: 'int'; v: bigint } | { t: 'float'; v: number } | { t: 'tuple' } | { t: 'complex' };

const int = (v: bigint): Py => {
  if (v.toString(2).length > MAX_INT_BITS) throw new ToolError('Expression too large');
  return { t: 'int', v };
};
const float = (v: number): Py => ({ t: 'float', v });

function toFloat(x: Py, op: string, other: Py): number {
  if (x.t === 'float') return x.v;
  if (x.t === 'int') {
    const n = Number(x.v);
    if (!Number.isFinite(n)) throw new ToolError('int too large to convert to float');
    return n;
  }
  throw new ToolError(`unsupported operand type(s) for ${op}: '${x.t}' and '${other.t}'`);
}

/** Python's float floor division (floatobject.c): floor of the exact quotient, not of the rounded one (1 // 0.1 is 9.0). */
function floatFloorDiv(a: number, b: number): number {
  const mod = a % b;
  let div = (a - mod) / b;
  if (mod && b < 0 !== mod < 0) div -= 1;
  if (!div) return Math.sign(a / b) < 0 || Object.is(a / b, -0) ? -0 : 0;
  let floordiv = Math.floor(div);
  if (div - floordiv > 0.5) floordiv += 1;
  return floordiv;
}

function floorDivBig(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n && a < 0n !== b < 0n) ? q - 1n : q;
}

function binary(op: string, a: Py, b: Py): Py {
  const unsupported = (): never => {
    throw new ToolError(`unsupported operand type(s) for ${op}: '${a.t}' and '${b.t}'`);
  };
  if (a.t === 'tuple' || b.t === 'tuple') {
    // The only arithmetic Python allows on the empty tuple: () + () and () * int.
    if (op === '+' && a.t === 'tuple' && b.t === 'tuple') return a;
    if (op === '*' && (a.t === 'int' || b.t === 'int')) return { t: 'tuple' };
    return unsupported();
  }
  if (a.t === 'complex' || b.t === 'complex') return op === '//' ? unsupported() : { t: 'complex' };
  if (a.t === 'int' && b.t === 'int') {
    switch (op) {
      case '+':
        return int(a.v + b.v);
      case '-':
        return int(a.v - b.v);
      case '*':
        return int(a.v * b.v);
      case '//':
        if (b.v === 0n) throw new ToolError('integer division or modulo by zero');
        return int(floorDivBig(a.v, b.v));
      case '/':
        if (b.v === 0n) throw new ToolError('division by zero');
        return float(toFloat(a, op, b) / toFloat(b, op, a));
      case '**':
        if (b.v >= 0n) {
          const bits = BigInt((a.v < 0n ? -a.v : a.v).toString(2).length);
          if (a.v !== 0n && a.v !== 1n && a.v !== -1n && bits * b.v > BigInt(MAX_INT_BITS)) throw new ToolError('Expression too large');
          return int(a.v ** b.v);
        }
        return power(toFloat(a, op, b), toFloat(b, op, a));
    }
  }
  const x = toFloat(a, op, b);
  const y = toFloat(b, op, a);
  switch (op) {
    case '+':
      return float(x + y);
    case '-':
      return float(x - y);
    case '*':
      return float(x * y);
    case '/':
      if (y === 0) throw new ToolError('float division by zero');
      return float(x / y);
    case '//':
      if (y === 0) throw new ToolError('float floor division by zero');
      return float(floatFloorDiv(x, y));
    default:
      return power(x, y);
  }
}

/** Python float `**`: 0 to a negative power fails, a negative base to a fraction is complex, overflow fails. */
function power(x: number, y: number): Py {
  if (x === 0 && y < 0) throw new ToolError('0.0 cannot be raised to a negative power');
  if (x < 0 && Number.isFinite(y) && !Number.isInteger(y)) return { t: 'complex' };
  const r = x ** y;
  if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) throw new ToolError("(34, 'Numerical result out of range')");
  return float(r);
}

type Token = { kind: 'num'; text: string } | { kind: 'op'; text: string };

function syntaxError(message: string, line = 1): ToolError {
  return new ToolError(`${message} (<string>, line ${line})`);
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  for (let i = 0; i < src.length; ) {
    const c = src[i];
    if (c === ' ') {
      i++;
      continue;
    }
    const num = /^(\d+\.?\d*|\.\d+)/.exec(src.slice(i));
    if (num) {
      // Python rejects 007 but accepts 00 and 01.5.
      if (/^0+[1-9]\d*$/.test(num[0])) throw syntaxError('leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers');
      tokens.push({ kind: 'num', text: num[0] });
      i += num[0].length;
      continue;
    }
    const op = src.startsWith('**', i) ? '**' : src.startsWith('//', i) ? '//' : c;
    if (op === '(') depth++;
    if (op === ')' && --depth < 0) throw syntaxError("unmatched ')'");
    tokens.push({ kind: 'op', text: op });
    i += op.length;
  }
  if (depth > 0) throw syntaxError("'(' was never closed");
  if (tokens.length === 0) throw syntaxError('invalid syntax', 0);
  return tokens;
}

type Node = { k: 'num'; text: string } | { k: 'tuple' } | { k: 'unary'; op: string; x: Node } | { k: 'bin'; op: string; a: Node; b: Node } | { k: 'call'; f: Node; arg: Node | null };

/** Parse the whole expression first: as in Python, a syntax error wins over any runtime error. */
function parse(tokens: Token[]): Node {
  let i = 0;
  let depth = 0;
  const peek = (): string | undefined => (tokens[i]?.kind === 'op' ? tokens[i].text : undefined);
  const fail = (): never => {
    throw syntaxError('invalid syntax');
  };
  const nest = <T>(f: () => T): T => {
    if (++depth > MAX_DEPTH) throw new ToolError('Expression too deeply nested');
    const v = f();
    depth--;
    return v;
  };

  // Python's grammar: expr = term (('+'|'-') term)*; term = factor (('*'|'/'|'//') factor)*;
  // factor = ('+'|'-') factor | power; power = primary ['**' factor]; primary = atom call*.
  const expr = (): Node => {
    let v = term();
    for (let op = peek(); op === '+' || op === '-'; op = peek()) {
      i++;
      v = { k: 'bin', op, a: v, b: term() };
    }
    return v;
  };
  const term = (): Node => {
    let v = factor();
    for (let op = peek(); op === '*' || op === '/' || op === '//'; op = peek()) {
      i++;
      v = { k: 'bin', op, a: v, b: factor() };
    }
    return v;
  };
  const factor = (): Node => {
    const op = peek();
    if (op === '+' || op === '-') {
      i++;
      return { k: 'unary', op, x: nest(factor) };
    }
    const base = primary();
    if (peek() !== '**') return base;
    i++;
    return { k: 'bin', op: '**', a: base, b: nest(factor) };
  };
  const primary = (): Node => {
    let v = atom();
    // `2(3)` parses in Python as a call (it fails when run).
    while (peek() === '(') {
      i++;
      const arg = peek() === ')' ? null : nest(expr);
      if (peek() !== ')') fail();
      i++;
      v = { k: 'call', f: v, arg };
    }
    return v;
  };
  const atom = (): Node => {
    const tok = tokens[i];
    if (!tok) return fail();
    i++;
    if (tok.kind === 'num') return { k: 'num', text: tok.text };
    if (tok.text !== '(') return fail();
    if (peek() === ')') {
      i++;
      return { k: 'tuple' };
    }
    const v = nest(expr);
    if (peek() !== ')') fail();
    i++;
    return v;
  };

  const node = expr();
  if (i !== tokens.length) fail();
  return node;
}

function run(n: Node): Py {
  switch (n.k) {
    case 'num':
      return n.text.includes('.') ? float(Number(n.text)) : int(BigInt(n.text));
    case 'tuple':
      return { t: 'tuple' };
    case 'call': {
      const f = run(n.f);
      if (n.arg) run(n.arg);
      throw new ToolError(`'${f.t}' object is not callable`);
    }
    case 'unary': {
      const v = run(n.x);
      if (v.t === 'tuple') throw new ToolError(`bad operand type for unary ${n.op}: 'tuple'`);
      if (n.op === '+' || v.t === 'complex') return v;
      return v.t === 'int' ? int(-v.v) : float(-v.v);
    }
    case 'bin':
      return binary(n.op, run(n.a), run(n.b));
  }
}

/** `float(eval(expression))`, with Python's errors as ToolErrors. */
export function calculate(expression: string): number {
  if (!/^[0-9+\-*/(). ]*$/.test(expression)) throw new ToolError('Invalid characters in expression');
  if (expression.length > MAX_EXPRESSION) throw new ToolError(`Expression too long (limit ${MAX_EXPRESSION} characters)`);
  const v = run(parse(tokenize(expression)));
  if (v.t === 'tuple' || v.t === 'complex') throw new ToolError(`float() argument must be a string or a real number, not '${v.t}'`);
  return v.t === 'int' ? toFloat(v, '', v) : v.v;
}

/** What the tool returns: `str(round(float(eval(expression)), 2))`, e.g. "2 + 2" → "4.0". */
export function calculateTool(expression: string): string {
  return pyFloatStr(pyRound2(calculate(expression)));
}
