import type { WorkbenchApi } from '../contract';
import { createEngine, type Engine } from '../engine/host';
import { inProcessClient } from '../engine/in-process';

/** Run `body` against a fresh in-process engine on the chosen data home, closing it after. */
export async function withEngine<T>(home: string | undefined, body: (api: WorkbenchApi, engine: Engine) => Promise<T>): Promise<T> {
  const engine = createEngine({ home });
  try {
    return await body(inProcessClient(engine), engine);
  } finally {
    await engine.close();
  }
}
