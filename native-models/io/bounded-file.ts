// Reading a file whose path came from outside (a model folder, a task file, a user's setting): only a
// regular file, only up to a size limit, and nothing about it trusted before both are known.
// The file is opened non-blocking and checked through the open descriptor, so a FIFO cannot hang the
// open, a device such as /dev/zero cannot be read without end, and nothing can be swapped in between
// the check and the read.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { type JsonBounds, JsonBoundsError, parseBoundedJson } from './bounded-json';

export type FileBoundsKind = 'missing' | 'not_file' | 'too_large' | 'unreadable';

export class FileBoundsError extends Error {
  override name = 'FileBoundsError';
  constructor(
    readonly kind: FileBoundsKind,
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

// Windows has no O_NONBLOCK (and no FIFOs on disk paths); 0 leaves the open as it is.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Open `path` as a regular file of at most `maxBytes`; the caller closes the descriptor. */
function openRegular(path: string, maxBytes: number, what: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new FileBoundsError('missing', path, `${what} does not exist`);
    throw new FileBoundsError('unreadable', path, `${what} cannot be opened (${code ?? (e as Error).message})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new FileBoundsError('not_file', path, `${what} is not a regular file (folders, pipes and devices are refused)`);
    if (stat.size > maxBytes) throw new FileBoundsError('too_large', path, `${what} is ${stat.size} bytes, over the ${maxBytes}-byte limit`);
    return { fd, size: stat.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** Size of a regular file of at most `maxBytes`, checked the way readBoundedFile checks it, without reading it. */
export function checkBoundedFile(path: string, maxBytes: number, what = path): number {
  const { fd, size } = openRegular(path, maxBytes, what);
  closeSync(fd);
  return size;
}

/** The bytes of a regular file of at most `maxBytes`; `what` names it in errors (never its contents). */
export function readBoundedFile(path: string, maxBytes: number, what = path): Buffer {
  const { fd, size } = openRegular(path, maxBytes, what);
  try {
    // Read at most the size seen: a file growing meanwhile is read as it was.
    const buf = Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const got = readSync(fd, buf, done, size - done, done);
      if (got === 0) break;
      done += got;
    }
    return done === size ? buf : buf.subarray(0, done);
  } catch (e) {
    throw new FileBoundsError('unreadable', path, `${what} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  } finally {
    closeSync(fd);
  }
}

/** UTF-8 text of a bounded regular file. */
export function readBoundedText(path: string, maxBytes: number, what = path): string {
  return readBoundedFile(path, maxBytes, what).toString('utf8');
}

/**
 * `label`, with where JSON text stopped parsing when the error says, but never the text itself: V8's
 * SyntaxError quotes the input, and a file that is not what the user meant (a link to /etc/passwd)
 * must not come back in an error.
 */
export function jsonSyntaxProblem(error: unknown, label: string): string {
  const at = /position (\d+)/.exec(error instanceof Error ? error.message : '');
  return at ? `${label} (at character ${Number(at[1]) + 1})` : label;
}

/**
 * JSON of a bounded regular file, its nesting checked before parsing. Throws FileBoundsError for the
 * file and JsonBoundsError (from bounded-json) for the text, neither quoting the file.
 */
export function readBoundedJsonFile(path: string, bounds: { maxBytes: number; maxDepth: number }, what = path): unknown {
  const text = readBoundedText(path, bounds.maxBytes, what);
  const jsonBounds: JsonBounds = { maxChars: bounds.maxBytes, maxDepth: bounds.maxDepth };
  try {
    return parseBoundedJson(text, jsonBounds, what);
  } catch (e) {
    if (e instanceof JsonBoundsError && e.kind === 'malformed') throw new JsonBoundsError('malformed', jsonSyntaxProblem(e, `${what} is not valid JSON`));
    throw e;
  }
}
