import type { Handlers, MethodName } from '../../contract';
import type { EngineServices, RequestContext } from '../system/services';

/** A family of handlers ('runs.*', 'metrics.*', …) built over the engine's services. */
export type HandlerGroup<M extends MethodName> = (services: EngineServices) => Pick<Handlers<RequestContext>, M>;
