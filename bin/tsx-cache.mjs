// tsx (which runs the TypeScript sources, so that `npm ci` is all the CLI needs) keeps a compile
// cache of every file it transpiled: about 200 files, in `os.tmpdir()/tsx-<uid>/` — outside the
// data home, where the README promises nothing is written. Without a cache every start transpiles
// again (measured: 1.5 s more for `envace --help`), so the cache is kept inside the home instead:
// `<home>/cache/tsx/`. tsx takes no option for the folder; it names it from os.tmpdir() when its
// loader thread starts, so the temp-folder variables point there only while it starts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TEMP_VARS = ['TMPDIR', 'TMP', 'TEMP'];

/**
 * The options of the CLI that take no value (and help's). Every other option takes the next word as
 * its value, whatever it looks like, as commander reads them: `--arg --home` gives --arg the value
 * "--home" (a server command that is itself `envace … --home DIR`). test/unit/cli/tsx-cache.test.ts
 * holds this list to the program's own.
 */
export const FLAGS_WITHOUT_VALUE = new Set(['-h', '--help', '--json', '--force', '--base', '--no-base', '--no-torch', '--no-llama', '--shared-state', '--all', '--dry-run', '--stdio', '--offline', '--quick']);

/**
 * The data home a command line names, by the CLI's own rule (electron/engine/home/index.ts resolveHome):
 * the last `--home DIR` or `--home=DIR` before a `--` that is not another option's value, else
 * $ENVACE_HOME, else ~/.envace.
 */
export function homeFromArgv(argv, env = process.env) {
  let home;
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') break;
    if (arg === '--home') home = argv[++i] ?? home;
    else if (arg.startsWith('--home=')) home = arg.slice('--home='.length);
    else if (arg.startsWith('-') && !arg.includes('=') && !FLAGS_WITHOUT_VALUE.has(arg)) i++;
  }
  return path.resolve(home ?? env.ENVACE_HOME ?? path.join(os.homedir(), '.envace'));
}

/** `<home>/cache/tsx`, made if missing; null when it cannot be written (a read-only home): then no cache. */
export function tsxCacheRoot(home) {
  const dir = path.join(home, 'cache', 'tsx');
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
    return dir;
  } catch {
    return null;
  }
}

/**
 * Register tsx in this thread (loader hooks are per thread on Node 20) with its cache under
 * `cacheRoot`; null: with no cache at all (TSX_DISABLE_CACHE, which threads started later inherit);
 * undefined: as tsx would by itself. This thread's temp-folder variables are put back after, and
 * ENVACE_TSX_CACHE tells threads started later (the compute worker) where the cache is.
 */
export async function registerTsx(cacheRoot) {
  if (cacheRoot === null) process.env.TSX_DISABLE_CACHE = '1';
  const saved = TEMP_VARS.map((name) => [name, process.env[name]]);
  if (cacheRoot) {
    for (const name of TEMP_VARS) process.env[name] = cacheRoot;
    process.env.ENVACE_TSX_CACHE = cacheRoot;
  }
  try {
    const { register } = await import('tsx/esm/api');
    register();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
