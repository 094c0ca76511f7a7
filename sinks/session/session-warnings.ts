import type { Logger } from 'pino';
import type { SinkWarning } from '../api.ts';

/** Where a session's warnings go: the sink's log, and the runtime's listener when it has one. */
export type WarnFn = (warning: SinkWarning) => void;

export function sessionWarner(log: Logger, listener: ((warning: SinkWarning) => void) | undefined): WarnFn {
  return (warning) => {
    log.warn({ ...warning.fields, warning: warning.kind }, warning.message);
    listener?.(warning);
  };
}
