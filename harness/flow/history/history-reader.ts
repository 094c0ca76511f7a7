import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError, storedSinkClass } from '../../base/index.ts';
import { storedFaultType } from './fault-type.ts';
import {
  FAULT_PROOFS,
  type FlowEvent,
  type FlowEventType,
  type InsertCompleteEvent,
  type InsertInvokeEvent,
  type Stamped,
} from './history-events.ts';

const EVENT_TYPES: ReadonlySet<FlowEventType> = new Set<FlowEventType>([
  'worker-launch',
  'worker-exit',
  'worker-start',
  'spec-refusal',
  'store-refusal',
  'state-snapshot',
  'partition-started',
  'partition-refused',
  'insert-invoke',
  'insert-sent',
  'insert-complete',
  'insert-gated',
  'epoch-commit',
  'epoch-failed',
  'delivered',
  'delivery-failed',
  'write-after-give-up',
  'acks',
  'sink-warning',
  'crash',
  'reconfigured',
  'reconfigure-failed',
  'fault-start',
  'fault-end',
  'fault-missed',
  'recovery',
  'schedule-cut',
]);

export interface History {
  /** All events, ordered by time, then writer, then the writer's own sequence. */
  readonly events: readonly Stamped[];
  /** A last line without its newline: only a machine crash mid-write leaves one; it is not an event. */
  readonly tornLines: readonly { readonly file: string; readonly text: string }[];
}

/** Reads a history directory (one file per writer) or a merged `history.jsonl`. */
export function readHistory(path: string): History {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name.endsWith('.jsonl'))
        .sort()
        .map((name) => join(path, name))
    : [path];
  const events: Stamped[] = [];
  const tornLines: { file: string; text: string }[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const last = lines.pop() ?? '';
    if (last !== '') tornLines.push({ file, text: last });
    lines.forEach((line, index) => events.push(parseLine(line, `${file}:${index + 1}`)));
  }
  events.sort((a, b) => a.at - b.at || (a.writer < b.writer ? -1 : a.writer > b.writer ? 1 : 0) || a.seq - b.seq);
  return { events, tornLines };
}

/** Writes the merged, ordered history as one `history.jsonl` (the run artifact). */
export function mergeHistory(dir: string, target: string): History {
  const history = existsSync(dir) ? readHistory(dir) : { events: [], tornLines: [] };
  writeFileSync(target, history.events.map((event) => `${JSON.stringify(event)}\n`).join(''));
  return history;
}

function parseLine(line: string, where: string): Stamped {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new HarnessError(
      'FLOW_HISTORY_INVALID',
      `History line ${where} is not JSON; the history file was written by something else or damaged`,
      { cause: error },
    );
  }
  const event = value as Partial<Stamped>;
  if (
    typeof event !== 'object' ||
    event === null ||
    !EVENT_TYPES.has(event.type as FlowEventType) ||
    typeof event.at !== 'number' ||
    typeof event.writer !== 'string' ||
    typeof event.seq !== 'number'
  ) {
    throw new HarnessError(
      'FLOW_HISTORY_INVALID',
      `History line ${where} is not a flow event (type, at, writer, seq): ${line.slice(0, 200)}`,
    );
  }
  // The launch names the class as the spec spelled it; every later event, as the worker validated it.
  if (event.type !== 'worker-launch' && 'sinkClass' in event)
    storedSinkClass(event.sinkClass, `History line ${where} (${event.type})`);
  if ('fault' in event) storedFaultType(event.fault, `History line ${where} (${event.type})`);
  if ('proofs' in event) storedProofs(event.proofs, `History line ${where} (${event.type})`);
  return event as Stamped;
}

/** A fault's recorded proofs, each one the checker knows: one it did not would be a requirement silently dropped. */
function storedProofs(proofs: unknown, where: string): void {
  const known: readonly unknown[] = FAULT_PROOFS;
  if (Array.isArray(proofs) && proofs.every((proof) => known.includes(proof))) return;
  throw new HarnessError(
    'STORED_FAULT_PROOF_INVALID',
    `${where} records the proofs ${JSON.stringify(proofs)}, not a list of ${FAULT_PROOFS.join(', ')}; the file was written by another version of the harness or edited by hand`,
  );
}

export function eventsOfType<T extends FlowEventType>(
  events: readonly Stamped[],
  type: T,
): Stamped<Extract<FlowEvent, { type: T }>>[] {
  return events.filter((event): event is Stamped<Extract<FlowEvent, { type: T }>> => event.type === type);
}

/** One INSERT attempt as invoke + optional sent + optional complete. */
export interface InsertAttemptRecord {
  readonly invoke: Stamped<InsertInvokeEvent>;
  /** The body was completely sent (`insertSent` fired). */
  readonly sent: boolean;
  /** The bytes the request put on its socket, when `insert-sent` recorded them. */
  readonly sentBytes?: number;
  readonly complete?: Stamped<InsertCompleteEvent>;
  /** The completion's outcome; `unknown` when the worker died before the attempt ended. */
  readonly outcome: InsertCompleteEvent['outcome'];
}

/** Pairs the attempt events (Jepsen's invoke/complete): an attempt cut short by a crash is `unknown`. */
export function insertAttempts(events: readonly Stamped[]): InsertAttemptRecord[] {
  const key = (event: { writer: string; queryId: string; attempt: number }) =>
    `${event.writer}\u0000${event.queryId}\u0000${event.attempt}`;
  const sent = new Map(eventsOfType(events, 'insert-sent').map((event) => [key(event), event]));
  const completes = new Map(eventsOfType(events, 'insert-complete').map((event) => [key(event), event]));
  return eventsOfType(events, 'insert-invoke').map((invoke) => {
    const complete = completes.get(key(invoke));
    const bytes = sent.get(key(invoke))?.bytes;
    return {
      invoke,
      sent: sent.has(key(invoke)),
      ...(bytes === undefined ? {} : { sentBytes: bytes }),
      complete,
      outcome: complete?.outcome ?? 'unknown',
    };
  });
}
