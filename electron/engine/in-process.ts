import { createClient, type Transport, type WorkbenchApi } from '../contract';
import type { Engine } from './host';

/** The contract without a wire: the CLI and tests call the engine in the same process. */
export function inProcessTransport(engine: Engine): Transport {
  return {
    request: (method, input) => engine.dispatch(method, input, { transport: 'in-process' }),
    subscribe: (listener) => engine.subscribe(listener),
  };
}

export function inProcessClient(engine: Engine): WorkbenchApi {
  return createClient(inProcessTransport(engine));
}
