/**
 * Why a pull from the Hugging Face Hub failed, as a code the handler maps to a contract error and a
 * message that says what to do (set HF_TOKEN, accept the repo's terms, go online…).
 */
export type HubErrorCode =
  | 'BAD_REPO' // not OWNER/NAME[@REVISION]
  | 'BAD_ENDPOINT' // HF_ENDPOINT is not an http(s) URL
  | 'UNREACHABLE' // DNS failure, connection refused, reset before any answer
  | 'AUTH' // 401: gated or private and no (valid) token
  | 'FORBIDDEN' // 403: the token has no access (gated terms not accepted)
  | 'NOT_FOUND' // no such repo, revision or file
  | 'CHECKSUM' // the bytes do not hash to the tree's sha256 / git oid
  | 'NOT_CACHED' // offline and this revision was never pulled
  | 'NOT_A_MODEL' // no config.json or no safetensors weights in the repo
  | 'UNSUPPORTED' // config.json names an architecture the import cannot load
  | 'TOO_LARGE' // more files or bytes than an import takes, or than the disk has free
  | 'BAD_RESPONSE'; // the server answered something that is not the Hub's API

export class HubError extends Error {
  constructor(
    readonly code: HubErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HubError';
  }
}

/** OWNER/NAME[@REVISION] split and checked; the Hub's names are letters, digits, '-', '_' and '.'. */
export function parseRepoRef(ref: string, revision?: string): { repo: string; revision: string } {
  const at = ref.indexOf('@');
  const repo = at < 0 ? ref : ref.slice(0, at);
  const rev = revision ?? (at < 0 ? 'main' : ref.slice(at + 1));
  if (!/^[A-Za-z0-9][\w.-]{0,95}\/[A-Za-z0-9][\w.-]{0,95}$/.test(repo) || repo.includes('..')) {
    throw new HubError('BAD_REPO', `${JSON.stringify(ref)} is not a Hub model id: give OWNER/NAME or OWNER/NAME@REVISION (e.g. Qwen/Qwen3-0.6B)`);
  }
  if (rev === '' || rev.length > 255 || /[\s\\]|\.\./.test(rev)) throw new HubError('BAD_REPO', `${JSON.stringify(rev)} is not a revision (a branch, tag or commit)`);
  return { repo, revision: rev };
}
