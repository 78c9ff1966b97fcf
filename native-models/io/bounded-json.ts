// JSON from outside (the wire, task files, config files, tool arguments) is bounded in size and
// nesting before anything recursive touches it. Both checks are loops with an explicit stack:
// a check that recursed would itself be the stack overflow it is meant to prevent.

export interface JsonBounds {
  /** Largest accepted text, in UTF-16 code units (≈ bytes for JSON, which is mostly ASCII). */
  maxChars: number;
  /** Deepest accepted nesting of arrays and objects (a scalar at the top is depth 0). */
  maxDepth: number;
}

/** Defaults for small documents: configs, tool arguments, one request. */
export const DEFAULT_JSON_BOUNDS: JsonBounds = { maxChars: 8 * 1024 * 1024, maxDepth: 64 };

export class JsonBoundsError extends Error {
  override name = 'JsonBoundsError';
  constructor(
    readonly kind: 'too_large' | 'too_deep' | 'malformed',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Nesting depth of a JSON text, found by scanning brackets outside strings; stops early once
 * `limit` is passed. Malformed text is left for JSON.parse to report.
 */
export function jsonTextDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return deepest;
}

/** JSON.parse behind a size and depth check; a leading byte-order mark is dropped. */
export function parseBoundedJson(text: string, bounds: Partial<JsonBounds> = {}, what = 'JSON'): unknown {
  const { maxChars, maxDepth } = { ...DEFAULT_JSON_BOUNDS, ...bounds };
  if (text.length > maxChars) throw new JsonBoundsError('too_large', `${what} is ${text.length} characters; the limit is ${maxChars}`);
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const depth = jsonTextDepth(body, maxDepth);
  if (depth > maxDepth) throw new JsonBoundsError('too_deep', `${what} nests deeper than ${maxDepth} levels`);
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new JsonBoundsError('malformed', `${what} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * Depth and size of an already-parsed value (IPC and in-process calls never see text). Counts
 * nodes and string characters; a cycle is refused. An object reached twice without a cycle (IPC's
 * structured clone keeps shared references) is fine and counted each time, as JSON would write it,
 * so the size bound also stops a small graph that expands into a huge tree.
 * Returns a reason, or null when within bounds.
 */
export function valueBoundsProblem(value: unknown, bounds: Partial<JsonBounds> = {}): string | null {
  const { maxChars, maxDepth } = { ...DEFAULT_JSON_BOUNDS, ...bounds };
  // An entry with `leave` set closes an object's subtree: it is off the current path again.
  const stack: Array<{ node: unknown; depth: number; leave?: boolean }> = [{ node: value, depth: 0 }];
  const onPath = new Set<object>();
  const tooLarge = `the value is larger than ${maxChars} characters as JSON`;
  let size = 0;
  while (stack.length > 0) {
    const { node, depth, leave } = stack.pop()!;
    if (leave) {
      onPath.delete(node as object);
      continue;
    }
    size += typeof node === 'string' ? node.length + 2 : 4;
    if (size > maxChars) return tooLarge;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= maxDepth) return `the value nests deeper than ${maxDepth} levels`;
    if (onPath.has(node)) return 'the value contains itself (a cycle)';
    if (ArrayBuffer.isView(node)) {
      size += (node as ArrayBufferView).byteLength;
      continue;
    }
    onPath.add(node);
    stack.push({ node, depth, leave: true });
    const children = Array.isArray(node) ? node : Object.values(node);
    if (!Array.isArray(node)) for (const key of Object.keys(node)) size += key.length + 3;
    for (const child of children) stack.push({ node: child, depth: depth + 1 });
  }
  // The last node's own bytes (a typed array, its keys) are counted after its check.
  return size > maxChars ? tooLarge : null;
}
