/**
 * The base of every error the project throws on purpose. `code` is stable (callers, tests and
 * the CLIs match on it); the message says what failed, which identifiers were involved and what
 * to do next. It lives in the sinks, the innermost layer, so both the sinks and the harness
 * around them can build on it without the sinks knowing the harness.
 */
export class CodedError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** An error of the sinks themselves: a spec, a value, a topology or a server answer they refuse. */
export class SinkError extends CodedError {}

/** Any coded error (the sinks' or the harness's), optionally with this code. */
export function hasErrorCode(error: unknown, code?: string): error is CodedError {
  return error instanceof CodedError && (code === undefined || error.code === code);
}
