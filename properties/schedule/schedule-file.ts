import { HarnessError } from '../../harness/base/index.ts';
import { CRASH_POINTS, type CrashPoint } from '../../harness/flow/history/index.ts';
import { TYPED_COLUMN_NAMES } from '../../harness/flow/index.ts';
import type { RawSinkSpec, Workload } from '../arbitraries/index.ts';
import type { FaultSpec } from './fault-spec.ts';
import type { Schedule, ScheduleStep, StepKind } from './schedule-step.ts';

export const SCHEDULE_FILE = 'schedule.json';
export const SCHEDULE_FILE_VERSION = 1;

/**
 * A run's whole input, as `schedule.json` beside its history holds it: what `--schedule FILE`
 * replays without generating anything, so a counterexample outlives a change of the generators.
 * `serverDedupOff` is the executor's choice for that run (which table settings it ran on).
 */
export interface ScheduleFile {
  readonly version: typeof SCHEDULE_FILE_VERSION;
  readonly sourceSeed: number;
  readonly serverDedupOff: boolean;
  readonly workload: Workload;
  readonly spec: RawSinkSpec;
  readonly steps: Schedule;
}

/** What is wrong with a stored fault: the field inside it (`family`, `params.ms`) and the problem. */
export interface FaultProblem {
  readonly at: string;
  readonly problem: string;
}

/** Checks a fault of a stored step against the registry: its family is known, its fields are the family's. */
export type FaultCheck = (value: unknown) => FaultSpec | FaultProblem;

type Json = Readonly<Record<string, unknown>>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads one stored file, every complaint naming the field it is about. */
class Reader {
  constructor(private readonly file: string) {}

  fail(field: string, problem: string): never {
    throw new HarnessError(
      'SCHEDULE_FILE_INVALID',
      `${this.file}: ${field} ${problem}; the file was written by another version of the harness or edited by hand`,
    );
  }

  object(value: unknown, field: string, keys: readonly string[]): Json {
    if (!isObject(value)) this.fail(field, `must be an object, got ${JSON.stringify(value)}`);
    const extra = Object.keys(value).filter((key) => !keys.includes(key));
    if (extra.length > 0) this.fail(`${field}.${extra[0]}`, `is not a field of it (${keys.join(', ')})`);
    return value;
  }

  integer(value: unknown, field: string, min = 0): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
      this.fail(field, `must be an integer of at least ${min}, got ${JSON.stringify(value)}`);
    return value;
  }

  string(value: unknown, field: string): string {
    if (typeof value !== 'string') this.fail(field, `must be a string, got ${JSON.stringify(value)}`);
    return value;
  }

  boolean(value: unknown, field: string): boolean {
    if (typeof value !== 'boolean') this.fail(field, `must be true or false, got ${JSON.stringify(value)}`);
    return value;
  }

  record(value: unknown, field: string): Record<string, unknown> {
    if (!isObject(value)) this.fail(field, `must be an object, got ${JSON.stringify(value)}`);
    return { ...value };
  }

  fault(value: unknown, field: string, check: FaultCheck): FaultSpec {
    const checked = check(value);
    return 'problem' in checked ? this.fail(`${field}.${checked.at}`, checked.problem) : checked;
  }

  spec(value: unknown, field: string): RawSinkSpec {
    const spec = this.object(value, field, ['sink_class_name', 'name', 'parameters', 'dynamic_parameters']);
    return {
      sink_class_name: this.string(spec.sink_class_name, `${field}.sink_class_name`),
      name: this.string(spec.name, `${field}.name`),
      parameters: this.record(spec.parameters, `${field}.parameters`),
      dynamic_parameters: this.record(spec.dynamic_parameters, `${field}.dynamic_parameters`),
    };
  }

  workload(value: unknown, field: string): Workload {
    const workload = this.object(value, field, [
      'partitions',
      'messagesPerEpoch',
      'keySpace',
      'payloadBytes',
      'typedColumns',
      'tableShuffle',
    ]);
    const payload = this.object(workload.payloadBytes, `${field}.payloadBytes`, ['min', 'max']);
    // Absent in schedules stored before typed columns were drawn: those runs had none.
    const typed = workload.typedColumns ?? [];
    if (!Array.isArray(typed) || typed.some((name) => !TYPED_COLUMN_NAMES.includes(name as string)))
      this.fail(
        `${field}.typedColumns`,
        `must be a list of typed column names (${TYPED_COLUMN_NAMES.join(', ')}), got ${JSON.stringify(typed)}`,
      );
    return {
      typedColumns: typed as string[],
      // Absent in schedules stored before the table's order was drawn: it was the stream's.
      tableShuffle:
        workload.tableShuffle === undefined ? 0 : this.integer(workload.tableShuffle, `${field}.tableShuffle`),
      partitions: this.integer(workload.partitions, `${field}.partitions`, 1),
      messagesPerEpoch: this.integer(workload.messagesPerEpoch, `${field}.messagesPerEpoch`, 1),
      keySpace: this.integer(workload.keySpace, `${field}.keySpace`, 1),
      payloadBytes: {
        min: this.integer(payload.min, `${field}.payloadBytes.min`),
        max: this.integer(payload.max, `${field}.payloadBytes.max`),
      },
    };
  }
}

/** The fields of each kind of step besides `kind`, and how each is read. */
const STEP_FIELDS: {
  readonly [K in StepKind]: (
    read: Reader,
    step: Json,
    field: string,
    fault: FaultCheck,
  ) => Extract<ScheduleStep, { kind: K }>;
} = {
  write: (read, s, f) => ({ kind: 'write', epochs: read.integer(s.epochs, `${f}.epochs`) }),
  'fault-episode': (read, s, f, fault) => ({
    kind: 'fault-episode',
    fault: read.fault(s.fault, `${f}.fault`, fault),
    epochs: read.integer(s.epochs, `${f}.epochs`),
    holdMs: read.integer(s.holdMs, `${f}.holdMs`),
  }),
  'replay-after-dedup-window': (read, s, f, fault) => ({
    kind: 'replay-after-dedup-window',
    fault: read.fault(s.fault, `${f}.fault`, fault),
    epochs: read.integer(s.epochs, `${f}.epochs`),
    afterMs: read.integer(s.afterMs, `${f}.afterMs`),
  }),
  crash: (read, s, f) => {
    if (!CRASH_POINTS.includes(s.point as CrashPoint))
      read.fail(`${f}.point`, `must be one of ${CRASH_POINTS.join(', ')}, got ${JSON.stringify(s.point)}`);
    return { kind: 'crash', point: s.point as CrashPoint };
  },
  'reconfigure-while-writing': (read, s, f) => ({
    kind: 'reconfigure-while-writing',
    dynamic: read.record(s.dynamic, `${f}.dynamic`),
    epochs: read.integer(s.epochs, `${f}.epochs`),
    afterMs: read.integer(s.afterMs, `${f}.afterMs`),
  }),
  'restart-with-spec': (read, s, f) => ({
    kind: 'restart-with-spec',
    spec: read.spec(s.spec, `${f}.spec`),
    label: read.string(s.label, `${f}.label`),
    refusal: read.boolean(s.refusal, `${f}.refusal`),
  }),
  'hold-and-write': (read, s, f) => ({
    kind: 'hold-and-write',
    epochs: read.integer(s.epochs, `${f}.epochs`),
    spec: read.spec(s.spec, `${f}.spec`),
    label: read.string(s.label, `${f}.label`),
  }),
  'restart-after-give-up': () => ({ kind: 'restart-after-give-up' }),
  drain: (read, s, f) => {
    if (!Array.isArray(s.partitions)) read.fail(`${f}.partitions`, 'must be a list of partition numbers');
    return {
      kind: 'drain',
      partitions: (s.partitions as unknown[]).map((p, i) => read.integer(p, `${f}.partitions[${i}]`)),
    };
  },
  'fault-chain': (read, s, f, fault) => {
    if (!Array.isArray(s.later)) read.fail(`${f}.later`, 'must be a list of chain links');
    return {
      kind: 'fault-chain',
      first: read.fault(s.first, `${f}.first`, fault),
      later: (s.later as unknown[]).map((each, i) => {
        const at = `${f}.later[${i}]`;
        const link = read.object(each, at, ['fault', 'meets']);
        const meets = link.meets === 'retry' || link.meets === 'replay' ? link.meets : undefined;
        if (meets === undefined)
          return read.fail(`${at}.meets`, `must be "retry" or "replay", got ${JSON.stringify(link.meets)}`);
        return { fault: read.fault(link.fault, `${at}.fault`, fault), meets };
      }),
      epochs: read.integer(s.epochs, `${f}.epochs`),
      holdMs: read.integer(s.holdMs, `${f}.holdMs`),
    };
  },
  'overlapping-faults': (read, s, f, fault) => {
    if (!Array.isArray(s.faults) || s.faults.length !== 2) read.fail(`${f}.faults`, 'must be a list of two faults');
    const [first, second] = s.faults as unknown[];
    const healFirst =
      s.healFirst === 0 || s.healFirst === 1
        ? s.healFirst
        : read.fail(`${f}.healFirst`, `must be 0 or 1, got ${JSON.stringify(s.healFirst)}`);
    return {
      kind: 'overlapping-faults',
      faults: [read.fault(first, `${f}.faults[0]`, fault), read.fault(second, `${f}.faults[1]`, fault)],
      healFirst,
      epochs: read.integer(s.epochs, `${f}.epochs`),
      holdMs: read.integer(s.holdMs, `${f}.holdMs`),
    };
  },
};

/** The keys each kind of step has besides `kind`. */
const STEP_KEYS: Readonly<Record<StepKind, readonly string[]>> = {
  write: ['epochs'],
  'fault-episode': ['fault', 'epochs', 'holdMs'],
  'replay-after-dedup-window': ['fault', 'epochs', 'afterMs'],
  crash: ['point'],
  'reconfigure-while-writing': ['dynamic', 'epochs', 'afterMs'],
  'restart-with-spec': ['spec', 'label', 'refusal'],
  'hold-and-write': ['epochs', 'spec', 'label'],
  'restart-after-give-up': [],
  drain: ['partitions'],
  'fault-chain': ['first', 'later', 'epochs', 'holdMs'],
  'overlapping-faults': ['faults', 'healFirst', 'epochs', 'holdMs'],
};

const isKind = (value: unknown): value is StepKind => typeof value === 'string' && value in STEP_FIELDS;

function readStep(read: Reader, value: unknown, field: string, fault: FaultCheck): ScheduleStep {
  if (!isObject(value)) return read.fail(field, `must be an object, got ${JSON.stringify(value)}`);
  if (!isKind(value.kind))
    read.fail(
      `${field}.kind`,
      `is ${JSON.stringify(value.kind)}, not a kind of step (${Object.keys(STEP_FIELDS).join(', ')})`,
    );
  const step = read.object(value, field, ['kind', ...STEP_KEYS[value.kind]]);
  return STEP_FIELDS[value.kind](read, step, field, fault);
}

/**
 * A stored `schedule.json`, every field checked (a wrong version, an unknown kind of step or
 * fault family, a malformed field: one line naming it), before anything runs.
 */
export function parseScheduleFile(text: string, file: string, fault: FaultCheck): ScheduleFile {
  const read = new Reader(file);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return read.fail('the file', `is not JSON (${(error as Error).message})`);
  }
  const top = read.object(parsed, 'the file', ['version', 'sourceSeed', 'serverDedupOff', 'workload', 'spec', 'steps']);
  if (top.version !== SCHEDULE_FILE_VERSION)
    read.fail('version', `is ${JSON.stringify(top.version)}; this harness reads version ${SCHEDULE_FILE_VERSION}`);
  if (!Array.isArray(top.steps)) read.fail('steps', 'must be a list of steps');
  return {
    version: SCHEDULE_FILE_VERSION,
    sourceSeed: read.integer(top.sourceSeed, 'sourceSeed', 1),
    serverDedupOff: read.boolean(top.serverDedupOff, 'serverDedupOff'),
    workload: read.workload(top.workload, 'workload'),
    spec: read.spec(top.spec, 'spec'),
    steps: (top.steps as unknown[]).map((each, i) => readStep(read, each, `steps[${i}]`, fault)),
  };
}
