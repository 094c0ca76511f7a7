import { SinkError } from '../errors.ts';
import type { InsertErrorClass } from './error-classification.ts';

/** The seed's exact text ("приводит к ошибке Giving up insert into ClickHouse"). */
export const GIVE_UP_MESSAGE = 'Giving up insert into ClickHouse';

export interface GiveUpDetails {
  readonly errorClass: InsertErrorClass;
  readonly reason: string;
  readonly attempts: number;
  /** The dedup token of the insert, when the class uses one. */
  readonly dedupToken?: string;
  readonly shard?: string;
}

/**
 * The give-up of an insert. Like the original's error, the message is exactly the seed's text and
 * the particulars travel beside it (`details`, `cause` = the last insert error), rendered by
 * `describe()` as attribute lines for logs and the CLI.
 */
export class InsertGaveUpError extends SinkError {
  constructor(
    readonly details: GiveUpDetails,
    cause: unknown,
  ) {
    super('SINK_INSERT_GAVE_UP', GIVE_UP_MESSAGE, { cause });
  }

  describe(): string {
    const cause = this.cause instanceof Error ? this.cause.message : String(this.cause);
    const lines: Array<[string, string | number | undefined]> = [
      ['error_class', this.details.errorClass],
      ['reason', this.details.reason],
      ['attempts', this.details.attempts],
      ['shard', this.details.shard],
      ['dedup_token', this.details.dedupToken],
      ['last_error', cause.split('\n')[0]],
    ];
    return [
      this.message,
      ...lines.filter(([, value]) => value !== undefined).map(([key, value]) => `    ${key.padEnd(11)} = ${value}`),
    ].join('\n');
  }
}

/**
 * The state of one sink instance after a give-up: it rejects every later write, so processing
 * stops until the operator fixes the table or config and restarts the pipeline, which creates a
 * new instance. The first give-up is the one reported.
 */
export class SinkInstanceHealth {
  private gaveUp: InsertGaveUpError | undefined;

  get poisoned(): boolean {
    return this.gaveUp !== undefined;
  }

  poison(error: InsertGaveUpError): void {
    this.gaveUp ??= error;
  }

  /** Throws `SINK_POISONED` (cause: the give-up) once the instance has given up. */
  assertWritable(): void {
    if (this.gaveUp === undefined) return;
    throw new SinkError(
      'SINK_POISONED',
      'This ClickHouse sink instance gave up an insert (Giving up insert into ClickHouse) and rejects every later write; fix the target table or the configuration, then pause and restart the pipeline to create a new sink instance',
      { cause: this.gaveUp },
    );
  }
}
