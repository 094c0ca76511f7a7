import { SinkError } from '../errors.ts';

/**
 * Stable ids of the spec rules (listed with their wording in `sinks/README.md`). Tests and the
 * harness match on `rule`; people read the message.
 */
export type SpecRule =
  | 'spec-shape'
  | 'spec-unknown-key'
  | 'name-required'
  | 'input-stream-ids'
  | 'class-unknown'
  | 'class-sync'
  | 'class-not-registered'
  | 'parameter-unknown'
  | 'parameter-section'
  | 'parameter-class'
  | 'parameter-type'
  | 'host-form-exactly-one'
  | 'host-form-class'
  | 'host-syntax'
  | 'hosts-single-element'
  | 'hosts-empty'
  | 'hosts-duplicate'
  | 'shard-hosts-empty'
  | 'shard-name-invalid'
  | 'shard-host-list-empty'
  | 'shard-hosts-shared-host'
  | 'sharding-key-without-shard-hosts'
  | 'sharding-key-columns-invalid'
  | 'port-range'
  | 'host-selection-policy'
  | 'user-empty'
  | 'password-env-name'
  | 'database-empty'
  | 'table-required'
  | 'codec'
  | 'tls-requires-enable-tls'
  | 'duration'
  | 'max-insert-attempts-range'
  | 'max-rows-per-batch-range'
  | 'max-bytes-per-batch-range'
  | 'total-queue-bytes-limit-range';

/** One refused rule: which spec path, which rule, and a message saying both and what to do. */
export class SinkSpecProblem extends SinkError {
  constructor(
    readonly rule: SpecRule,
    readonly path: string,
    detail: string,
    code = 'SINK_SPEC_INVALID',
  ) {
    super(code, `${path}: ${detail} (rule: ${rule})`);
  }
}

/** Every problem of a refused spec at once. */
export class SinkSpecRefusal extends SinkError {
  constructor(
    readonly problems: readonly SinkSpecProblem[],
    specName: string | undefined,
  ) {
    const subject = specName ? `sink spec '${specName}'` : 'sink spec';
    super(
      'SINK_SPEC_INVALID',
      [`Refusing the ${subject}: ${problems.length} problem(s)`, ...problems.map((p) => `  - ${p.message}`)].join('\n'),
    );
  }
}

/** Collects problems while validation goes on, so the user sees all of them in one pass. */
export class SpecProblems {
  readonly list: SinkSpecProblem[] = [];

  add(rule: SpecRule, path: string, detail: string, code?: string): void {
    this.list.push(new SinkSpecProblem(rule, path, detail, code));
  }
}
