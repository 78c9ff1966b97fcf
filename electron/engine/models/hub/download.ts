import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RepoFile } from './api';
import { HubError } from './errors';
import { type HubConnection, NetworkFailure, hubGet } from './http';

/** Where a file's bytes collect until they are complete and verified; a later pull continues it. */
export const INCOMPLETE_SUFFIX = '.incomplete';
/** Cuts survived per file before giving up (each attempt continues where the last stopped). */
const ATTEMPTS = 5;

/** The hash a file's bytes must have: sha256 for LFS files, git's blob sha1 for the rest. */
function verifier(file: RepoFile): { hash: Hash; expected: string | null; label: string } {
  if (file.sha256) return { hash: createHash('sha256'), expected: file.sha256, label: 'sha256' };
  const hash = createHash('sha1');
  hash.update(`blob ${file.size}\0`);
  return { hash, expected: file.gitOid ?? null, label: 'git oid' };
}

async function hashInto(hash: Hash, file: string): Promise<void> {
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
}

/**
 * Download `url` into `dest` (atomically: `dest.incomplete`, renamed once verified). A cut connection
 * is continued with an HTTP Range request from the bytes already on disk, here or in a later pull;
 * bytes that do not hash to the tree's value are deleted and refused.
 */
export async function downloadFile(conn: HubConnection, url: string, file: RepoFile, dest: string, onBytes: (n: number) => void): Promise<void> {
  const part = dest + INCOMPLETE_SUFFIX;
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  if (fs.existsSync(part) && fs.statSync(part).size > file.size) fs.rmSync(part);
  // Bytes an earlier, cut pull left count as done: the progress bar starts where the file does.
  if (fs.existsSync(part)) onBytes(fs.statSync(part).size);
  let lastError: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const have = fs.existsSync(part) ? fs.statSync(part).size : 0;
    const v = verifier(file);
    try {
      const start = have;
      if (start > 0) await hashInto(v.hash, part);
      const res = await hubGet(conn, url, start > 0 ? { range: `bytes=${start}-` } : {});
      // 206: the server continues where we stopped; 200 (no range support) or 416: start over.
      const append = start > 0 && res.status === 206;
      if ((start > 0 && !append) || res.status === 416) {
        await res.body?.cancel();
        fs.rmSync(part, { force: true });
        onBytes(-start);
        continue;
      }
      const out = fs.createWriteStream(part, { flags: append ? 'a' : 'w' });
      let written = append ? start : 0;
      try {
        for await (const chunk of res.body ?? []) {
          const buf = chunk as Uint8Array;
          written += buf.byteLength;
          // A server sending more than the tree's size would fill the disk: stop at the first byte too many.
          if (written > file.size) throw new HubError('CHECKSUM', `${file.path}: the server sent more than the ${file.size} bytes the Hub's tree lists; the file was deleted, pull again`);
          v.hash.update(buf);
          if (!out.write(buf)) await new Promise<void>((r) => out.once('drain', () => r()));
          onBytes(buf.byteLength);
        }
      } finally {
        await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
      }
      return finish(file, part, dest, v);
    } catch (error) {
      if (error instanceof HubError && error.code === 'CHECKSUM') fs.rmSync(part, { force: true });
      if (conn.signal?.aborted || error instanceof HubError) throw error;
      // A connection cut mid-body surfaces as a stream error; the bytes written so far stay for the next attempt.
      lastError = error;
    }
  }
  const reason = lastError instanceof NetworkFailure ? lastError.reason : lastError instanceof Error ? lastError.message : String(lastError);
  throw new NetworkFailure(url, `the download of ${file.path} broke off ${ATTEMPTS} times: ${reason}`);
}

function finish(file: RepoFile, part: string, dest: string, v: ReturnType<typeof verifier>): void {
  const size = fs.statSync(part).size;
  const digest = v.hash.digest('hex');
  if (size !== file.size || (v.expected !== null && digest !== v.expected)) {
    fs.rmSync(part, { force: true });
    throw new HubError(
      'CHECKSUM',
      `${file.path}: the downloaded bytes (${size} bytes, ${v.label} ${digest}) do not match the Hub's (${file.size} bytes${v.expected ? `, ${v.label} ${v.expected}` : ''}); the file was deleted, pull again`,
    );
  }
  fs.renameSync(part, dest);
}
