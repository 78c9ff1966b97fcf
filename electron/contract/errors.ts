import { z } from 'zod';

/** The typed error every transport returns instead of throwing. */
export const ErrorCode = z.enum([
  'invalid_input', // the payload failed the contract's schema
  'unknown_method',
  'not_found',
  'conflict', // the request is valid but the state forbids it (e.g. delete a running run)
  'not_available', // the capability exists in the contract but its engine part has not landed
  'unauthorized',
  'engine_unavailable', // the engine process died or is restarting
  'internal',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ContractErrorShape = z.strictObject({
  code: ErrorCode,
  message: z.string(),
  /** For invalid_input: where and why, from zod. */
  issues: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
});
export type ContractErrorShape = z.infer<typeof ContractErrorShape>;

export class ContractError extends Error {
  readonly code: ErrorCode;
  readonly issues?: ContractErrorShape['issues'];
  constructor(code: ErrorCode, message: string, issues?: ContractErrorShape['issues']) {
    super(message);
    this.name = 'ContractError';
    this.code = code;
    this.issues = issues;
  }
  toShape(): ContractErrorShape {
    return this.issues ? { code: this.code, message: this.message, issues: this.issues } : { code: this.code, message: this.message };
  }
  static from(shape: ContractErrorShape): ContractError {
    return new ContractError(shape.code, shape.message, shape.issues);
  }
}

/** What crosses every transport: a value or a typed error, never an exception. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ContractErrorShape };

export function zodIssues(error: z.ZodError): NonNullable<ContractErrorShape['issues']> {
  return error.issues.slice(0, 20).map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
}
