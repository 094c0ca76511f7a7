/**
 * The one base error of the project. `code` is stable (tests and the CLI match on it), the
 * message says what failed, which identifiers were involved and what to do next.
 */
export class HarnessError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HarnessError';
    this.code = code;
  }
}

export function isHarnessError(error: unknown, code?: string): error is HarnessError {
  return error instanceof HarnessError && (code === undefined || error.code === code);
}

/** A one-line description of any thrown value, for CLI output and logs. */
export function describeError(error: unknown): string {
  if (error instanceof HarnessError) return `${error.message} [${error.code}]`;
  if (error instanceof Error) return error.message;
  return String(error);
}
