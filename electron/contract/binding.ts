import { z } from 'zod';
import { ContractError, type ContractErrorShape, type Result, zodIssues } from './errors';
import { events, type EventName, type EventPayload } from './events';
import { methods, type HandlerInput, type MethodInput, type MethodName, type MethodOutput } from './methods';

/** One handler per method; the table type makes a missing handler a compile error. */
export type Handlers<Ctx = void> = {
  [M in MethodName]: (input: HandlerInput<M>, ctx: Ctx) => Promise<MethodOutput<M>> | MethodOutput<M>;
};

export interface DispatchOptions {
  /** Check handler outputs against the contract too (on in tests and dev; cheap enough to leave on). */
  validateOutput?: boolean;
  /** Called for errors that are not ContractErrors (bugs), before they are turned into `internal`. */
  onInternalError?: (method: string, error: unknown) => void;
  /**
   * A size and depth check that runs before the schema and returns a reason or null. zod
   * recurses, so a few KB nested ~1,500 deep overflow the stack inside it; the check must be a
   * loop. The contract is zod only, so the engine passes native-models' valueBoundsProblem.
   */
  inputProblem?: (input: unknown) => string | null;
}

export type Dispatch<Ctx = void> = (method: unknown, input: unknown, ctx: Ctx) => Promise<Result<unknown>>;

function isMethodName(name: unknown): name is MethodName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(methods, name);
}

/** A thrown value as one line; whatever was thrown (even an object whose toString throws). */
function describeThrown(error: unknown): string {
  try {
    // String(): libraries do throw Errors whose message is an object.
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return 'an unprintable value was thrown';
  }
}

/**
 * The server half: validates the method name and the payload where they enter, runs the
 * handler, and turns every failure into a typed error result. It never throws: validation,
 * the handler, the output check and the error reporting itself all run inside the one try.
 */
export function createDispatcher<Ctx = void>(handlers: Handlers<Ctx>, options: DispatchOptions = {}): Dispatch<Ctx> {
  const validateOutput = options.validateOutput ?? true;
  const invalid = (method: string, message: string, issues?: ContractErrorShape['issues']): Result<unknown> => ({
    ok: false,
    error: issues ? { code: 'invalid_input', message: `invalid input for ${method}: ${message}`, issues } : { code: 'invalid_input', message: `invalid input for ${method}: ${message}` },
  });
  return async (method, input, ctx) => {
    if (!isMethodName(method)) {
      const shown = typeof method === 'string' ? method.slice(0, 80) : typeof method;
      return { ok: false, error: { code: 'unknown_method', message: `unknown method: ${shown}` } };
    }
    const spec = methods[method];
    let validated = false;
    try {
      const problem = options.inputProblem?.(input);
      if (problem) return invalid(method, problem);
      const parsed = spec.input.safeParse(input ?? {});
      if (!parsed.success) return invalid(method, z.prettifyError(parsed.error).slice(0, 500), zodIssues(parsed.error));
      validated = true;
      const handler = handlers[method] as (input: unknown, ctx: Ctx) => unknown;
      const value = await handler(parsed.data, ctx);
      if (validateOutput) {
        const out = spec.output.safeParse(value);
        if (!out.success) {
          options.onInternalError?.(method, out.error);
          return { ok: false, error: { code: 'internal', message: `${method} produced output outside the contract: ${z.prettifyError(out.error).slice(0, 500)}` } };
        }
        return { ok: true, value: out.data };
      }
      return { ok: true, value };
    } catch (error) {
      if (error instanceof ContractError) return { ok: false, error: error.toShape() };
      // Whatever breaks the schema (a stack overflow, a getter that throws) is the payload's fault.
      if (!validated) return invalid(method, `it could not be validated (${describeThrown(error).slice(0, 200)})`);
      try {
        options.onInternalError?.(method, error);
      } catch {
        // A failing reporter must not turn a typed error into a thrown one.
      }
      return { ok: false, error: { code: 'internal', message: `${method} failed: ${describeThrown(error)}` } };
    }
  };
}

/** What a transport must carry: requests with results, and pushed events. */
export interface Transport {
  request(method: string, input: unknown): Promise<Result<unknown>>;
  subscribe(listener: (event: string, payload: unknown) => void): () => void;
}

/** The API every client (renderer, CLI, tests) programs against, whatever the transport. */
export interface WorkbenchApi {
  call<M extends MethodName>(method: M, ...input: {} extends MethodInput<M> ? [input?: MethodInput<M>] : [input: MethodInput<M>]): Promise<MethodOutput<M>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}

/** The client half: typed calls that throw ContractError on an error result. */
export function createClient(transport: Transport): WorkbenchApi {
  return {
    async call(method, ...rest) {
      const result = await transport.request(method, rest[0] ?? {});
      if (!result.ok) throw ContractError.from(result.error);
      return result.value as never;
    },
    on(event, listener) {
      return transport.subscribe((name, payload) => {
        if (name === event) listener(payload as never);
      });
    },
  };
}

/** Validate an event payload before it leaves the engine. */
export function checkEvent<E extends EventName>(event: E, payload: EventPayload<E>): EventPayload<E> {
  return events[event].parse(payload) as EventPayload<E>;
}
