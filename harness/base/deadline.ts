import { HarnessError } from './errors.ts';

/**
 * `promise`, or a `CHAOS_STEP_TIMEOUT` naming `what` once `ms` passed: a step that waits on a
 * stopped member must end. The promise itself is not cancelled; its later outcome is dropped.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new HarnessError('CHAOS_STEP_TIMEOUT', `${what} did not finish within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
