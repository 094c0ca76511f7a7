import pino, { type Logger } from 'pino';

/** A pino logger that keeps every record in memory, for tests that assert on warnings. */
export function captureLogs(level = 'warn'): { readonly logger: Logger; readonly records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  const logger = pino(
    { level },
    { write: (line: string) => void records.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, records };
}
