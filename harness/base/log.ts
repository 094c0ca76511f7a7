import pino, { type Logger } from 'pino';

/**
 * The root logger. Quiet by default (warn); `LOG_LEVEL` raises it. Components take
 * `rootLogger.child({ component })`; runs that own a log file use `fileLogger`.
 */
export const rootLogger: Logger = pino(
  { level: process.env.LOG_LEVEL ?? 'warn', base: { pid: process.pid } },
  // stderr: stdout belongs to the commands' own output (`cluster up` prints one JSON document).
  pino.destination(2),
);

export function componentLogger(component: string, bindings: Record<string, unknown> = {}): Logger {
  return rootLogger.child({ component, ...bindings });
}

/**
 * A logger writing JSON lines to a file, for a run's per-process logs. Writes are synchronous:
 * a worker that SIGKILLs itself at a crash point keeps its last lines, and a command that exits
 * right after opening its log (bad input) does not trip over a destination still opening.
 */
export function fileLogger(path: string, component: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino(
    { level, base: { pid: process.pid, component } },
    pino.destination({ dest: path, sync: true, mkdir: true }),
  );
}

export type { Logger };
