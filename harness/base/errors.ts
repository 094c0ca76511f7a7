import { CodedError, hasErrorCode } from '../../sinks/index.ts';

/**
 * An error of the harness itself (cluster, runtime, executor, CLIs). It shares its base with the
 * sinks' errors, so `isHarnessError` and `describeError` treat a sink's refusal travelling
 * through the runtime like the harness's own.
 */
export class HarnessError extends CodedError {}

export function isHarnessError(error: unknown, code?: string): error is CodedError {
  return hasErrorCode(error, code);
}

/** A one-line description of any thrown value, for CLI output and logs. */
export function describeError(error: unknown): string {
  if (error instanceof CodedError) return `${error.message} [${error.code}]`;
  if (error instanceof Error) return error.message;
  return String(error);
}
