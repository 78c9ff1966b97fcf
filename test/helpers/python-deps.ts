// Python packages a test loads our exports with (PEFT, transformers…), beyond Debian's python3-torch: fetched
// from PyPI by pip into a cache outside the repository, once per requirement set, and put on PYTHONPATH.
// `--no-deps` with every package named: pip's resolver would otherwise fetch a torch of its own (Debian's
// 1.13.0a0 is a pre-release to it), and these tests run on Debian's. A test skips, saying why, only where
// /usr/bin/python3 has no torch or PyPI cannot be reached; any other pip failure fails the test.
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const PYTHON = '/usr/bin/python3';

export type PythonDeps = { ok: true; env: NodeJS.ProcessEnv; dir: string } | { ok: false; reason: string };

/** Where cached requirement sets live: $ENVACE_TEST_PYTHON_CACHE, else ~/.cache/envace-tests/python. */
const cacheRoot = () => process.env.ENVACE_TEST_PYTHON_CACHE ?? join(homedir(), '.cache', 'envace-tests', 'python');

/** pip's words for a network it could not reach (DNS, refused, timed out, proxy), as opposed to a package problem. */
export const UNREACHABLE = /NewConnectionError|Temporary failure in name resolution|Name or service not known|Network is unreachable|ConnectTimeoutError|ReadTimeoutError|ProxyError|Max retries exceeded|Connection refused/;

export function pip(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(PYTHON, ['-m', 'pip', ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/**
 * `requirements` (pip specifiers, every dependency named) installed with `pip install --no-deps --target` into
 * the cache, reused when already there. Resolves to the environment to run /usr/bin/python3 with, or why not.
 */
export async function pythonDeps(name: string, requirements: readonly string[]): Promise<PythonDeps> {
  if (spawnSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status !== 0) return { ok: false, reason: `${PYTHON} cannot import torch` };
  const key = createHash('sha256').update(JSON.stringify(requirements)).digest('hex').slice(0, 12);
  const dir = join(cacheRoot(), `${name}-${key}`);
  const env = { ...process.env, PYTHONPATH: dir, PYTHONNOUSERSITE: '1' };
  if (existsSync(join(dir, '.complete'))) return { ok: true, env, dir };
  mkdirSync(cacheRoot(), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const { code, output } = await pip(['install', '--no-deps', '--target', tmp, '--retries', '1', '--timeout', '20', '--disable-pip-version-check', '--no-warn-script-location', '-q', ...requirements]);
  if (code !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    const unreachable = UNREACHABLE.exec(output);
    if (unreachable) return { ok: false, reason: `PyPI is unreachable from here (pip: ${unreachable[0]})` };
    throw new Error(`pip install ${requirements.join(' ')} failed:\n${output}`);
  }
  writeFileSync(join(tmp, '.complete'), `${requirements.join('\n')}\n`);
  // Another worker may have finished the same set first; its copy is as good.
  if (existsSync(dir)) rmSync(tmp, { recursive: true, force: true });
  else renameSync(tmp, dir);
  return { ok: true, env, dir };
}
