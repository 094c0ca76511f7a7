import pino, { type Logger } from 'pino';

/**
 * The logger a sink uses when its host gives none (`SinkContext.logger`): warnings and errors on
 * stderr, `LOG_LEVEL` raises it. Hosts (the Flow runtime) pass their own.
 */
export function defaultSinkLogger(bindings: Record<string, unknown>): Logger {
  return pino(
    { level: process.env.LOG_LEVEL ?? 'warn', base: { pid: process.pid, component: 'sink', ...bindings } },
    pino.destination(2),
  );
}
