import type { WorkbenchApi } from '../contract';
import { createEngine, type Engine } from '../engine/host';
import path from 'node:path';
import { setScratchRoot } from '../engine/envs/scratch';
import { ensureHome, homeWritable, resolveHome } from '../engine/home';
import { inProcessClient } from '../engine/in-process';
import { loadUserEnvs } from '../engine/envs/user-envs';
import { recordServersUnder } from '../engine/envs/mcp/server-records';

/** Run `body` against a fresh in-process engine on the chosen data home, closing it after. */
export async function withEngine<T>(home: string | undefined, body: (api: WorkbenchApi, engine: Engine) => Promise<T>): Promise<T> {
  const engine = createEngine({ home });
  try {
    return await body(inProcessClient(engine), engine);
  } finally {
    await engine.close();
  }
}

/**
 * The data home's user environments registered in this process, for commands that use the
 * environments without an engine (the oracle policy): the same loader the engine uses.
 */
export async function withUserEnvs(home: string | undefined): Promise<void> {
  const paths = ensureHome(resolveHome(home));
  setScratchRoot(path.join(paths.home, 'tmp'));
  recordServersUnder(homeWritable(paths.home) ? paths.home : null);
  await loadUserEnvs(paths);
}
