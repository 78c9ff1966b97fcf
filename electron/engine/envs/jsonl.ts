// JSON Lines from users' files (MCP task files, demonstrations): a leading byte-order mark accepted
// (editors on Windows write one), each line bounded in size and nesting before it is parsed, and
// problems told by line number without quoting the line: the file may not be what the user meant
// to point at, and its contents must not come back in an error.

import { JsonBoundsError, parseBoundedJson } from '../../../native-models/io/bounded-json';
import { jsonSyntaxProblem } from '../../../native-models/io/bounded-file';

export interface JsonLineBounds {
  maxChars: number;
  maxDepth: number;
}

/** A task or a demonstration is a few KB of JSON a few levels deep; far beyond either is not one. */
export const JSONL_LINE_BOUNDS: JsonLineBounds = { maxChars: 1024 * 1024, maxDepth: 32 };

export type JsonLine = { line: number; value: unknown; problem?: undefined } | { line: number; problem: string };

/** Why a line did not parse, without any of its text. */
function describe(error: unknown, malformed: string): string {
  if (error instanceof JsonBoundsError && error.kind !== 'malformed') return error.message;
  return jsonSyntaxProblem(error, malformed);
}

/** Every non-blank line of `text` (1-based line numbers), parsed or with its problem; `malformed` words a line that is not JSON. */
export function parseJsonLines(text: string, bounds: JsonLineBounds = JSONL_LINE_BOUNDS, malformed = 'not valid JSON'): JsonLine[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const out: JsonLine[] = [];
  body.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      out.push({ line: i + 1, value: parseBoundedJson(raw, bounds, 'the line') });
    } catch (error) {
      out.push({ line: i + 1, problem: describe(error, malformed) });
    }
  });
  return out;
}
