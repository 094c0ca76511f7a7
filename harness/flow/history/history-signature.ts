import { createHash } from 'node:crypto';
import { SINK_CLASSES } from '../../../sinks/index.ts';
import type { FlowEvent, Stamped } from './history-events.ts';

/**
 * What a faithful replay of one run input must reproduce, and nothing that two real executions
 * of the same input may tell apart. Decided on a real run and its `schedule.json` replayed on a
 * cluster started anew (ClickHouseBatchingSink, keeper-faults, a Keeper-link latency): they
 * differed in every query id (the aimed one's too), every endpoint's port, the proxies' byte
 * counters, times and pids, and agreed on all that is kept here:
 * - per (sink, partition), in order, every epoch commit (epoch, `[fromSeq, toSeq)`, message ids,
 *   the batches the sink cut: number, token, size) and every batch marked delivered (its token);
 * - the acknowledged ids (the history's own definition, `history-events.ts`), as a set;
 * - every fault started, in window order: its type, effect, the unknown kind it is built for, its
 *   toxic (stream and attributes), its ClickHouse code, and its description (which link or
 *   member it acted on, as the nemesis named it);
 * - every refusal, in order: spec, store or a partition's (partition, code, the message up to its
 *   first colon, where the hosts and ports it names begin);
 * - every crash hit: point, partition, batch, occurrence.
 * Left out, because they differ between two executions of one input (measured, or where that
 * pair had none, by how they arise): times, pids, writer names, query ids, attempt numbers and
 * retries (how often an INSERT was tried depends on when the cluster answered), endpoints (a
 * cluster started anew listens on other ports), state snapshots (how far the other partitions
 * got when a worker restarted is a race), gate holds, warnings, fault-end and proxy counters. Its limit: a fault aimed at "the next INSERT" meets whichever
 * partition's INSERT comes first, so a run whose partitions race for the gate can sign
 * differently though the sink behaved the same; the projection it was computed over is stored
 * beside the hash so two signatures that differ can be diffed.
 */
export interface HistoryProjection {
  readonly version: typeof SIGNATURE_VERSION;
  readonly partitions: readonly PartitionProjection[];
  readonly acknowledged: readonly string[];
  readonly faults: readonly FaultProjection[];
  readonly refusals: readonly RefusalProjection[];
  readonly crashes: readonly CrashProjection[];
}

export interface PartitionProjection {
  readonly sink: string;
  readonly partition: number;
  readonly commits: readonly {
    readonly epoch: number;
    readonly fromSeq: number;
    readonly toSeq: number;
    readonly messageIds: readonly string[];
    readonly batches: readonly { readonly number: number; readonly token: string; readonly messages: number }[];
  }[];
  readonly delivered: readonly string[];
}

export interface FaultProjection {
  readonly fault: string;
  readonly effect: string;
  readonly expects: string | null;
  readonly toxic: { readonly stream: string; readonly attributes: readonly [string, number][] } | null;
  readonly serverCode: string | null;
  readonly description: string;
}

export interface RefusalProjection {
  readonly kind: 'spec' | 'store' | 'partition';
  readonly partition: number | null;
  readonly code: string;
  readonly message: string;
}

export interface CrashProjection {
  readonly point: string;
  readonly partition: number;
  readonly batch: number;
  readonly occurrence: number;
}

export interface HistorySignature {
  /** SHA-256 (hex) of the projection's canonical JSON. */
  readonly sha256: string;
  readonly projection: HistoryProjection;
}

export const SIGNATURE_VERSION = 1;

type Of<T extends FlowEvent['type']> = Stamped<Extract<FlowEvent, { type: T }>>;

const ofType = <T extends FlowEvent['type']>(events: readonly Stamped[], type: T): Of<T>[] =>
  events.filter((event): event is Of<T> => event.type === type);

/** A refusal's message up to its first colon: what was refused, before the hosts and ports it names. */
const messagePrefix = (message: string): string => message.split(':')[0]!.trim();

function partitions(events: readonly Stamped[]): PartitionProjection[] {
  const keyed = new Map<
    string,
    { sink: string; partition: number; commits: Of<'epoch-commit'>[]; delivered: string[] }
  >();
  const entry = (sink: string, partition: number) => {
    const key = JSON.stringify([sink, partition]);
    const found = keyed.get(key) ?? { sink, partition, commits: [], delivered: [] };
    keyed.set(key, found);
    return found;
  };
  for (const commit of ofType(events, 'epoch-commit')) entry(commit.sink, commit.partition).commits.push(commit);
  for (const delivered of ofType(events, 'delivered'))
    entry(delivered.sink, delivered.partition).delivered.push(delivered.token);
  return [...keyed.values()]
    .sort((a, b) => (a.sink === b.sink ? a.partition - b.partition : a.sink < b.sink ? -1 : 1))
    .map(({ sink, partition, commits, delivered }) => ({
      sink,
      partition,
      commits: commits.map((commit) => ({
        epoch: commit.epoch,
        fromSeq: commit.fromSeq,
        toSeq: commit.toSeq,
        messageIds: commit.messageIds,
        batches: commit.batches.map((batch) => ({
          number: batch.number,
          token: batch.token,
          messages: batch.messages,
        })),
      })),
      delivered,
    }));
}

/** The history's own "acknowledged": a committed epoch, or for at-most-once a delivered ack (or a queued one whose INSERT ended ok). */
function acknowledged(events: readonly Stamped[]): string[] {
  const ids = new Set<string>();
  const atMostOnce = (sinkClass: string) =>
    SINK_CLASSES[sinkClass as keyof typeof SINK_CLASSES]?.guarantee === 'at-most-once';
  for (const commit of ofType(events, 'epoch-commit'))
    if (!atMostOnce(commit.sinkClass)) for (const id of commit.messageIds) ids.add(id);
  const okQueries = new Set(
    ofType(events, 'insert-complete').flatMap((event) => (event.outcome === 'ok' ? [event.queryId] : [])),
  );
  const okIds = new Set(
    ofType(events, 'insert-invoke').flatMap((event) => (okQueries.has(event.queryId) ? event.messageIds : [])),
  );
  for (const acks of ofType(events, 'acks'))
    for (const { id, ack } of acks.acks) if (ack === 'delivered' || (ack === 'queued' && okIds.has(id))) ids.add(id);
  return [...ids].sort();
}

function faults(events: readonly Stamped[]): FaultProjection[] {
  return ofType(events, 'fault-start')
    .sort((a, b) => a.window - b.window)
    .map((start) => ({
      fault: start.fault,
      effect: start.effect,
      expects: start.expects ?? null,
      toxic:
        start.toxic === undefined
          ? null
          : {
              stream: start.toxic.stream,
              attributes: Object.entries(start.toxic.attributes).sort(([a], [b]) => (a < b ? -1 : 1)),
            },
      serverCode: start.serverCode ?? null,
      description: start.description,
    }));
}

function refusals(events: readonly Stamped[]): RefusalProjection[] {
  return events.flatMap((event): RefusalProjection[] => {
    if (event.type === 'spec-refusal' || event.type === 'store-refusal')
      return [
        {
          kind: event.type === 'spec-refusal' ? 'spec' : 'store',
          partition: null,
          code: event.code,
          message: messagePrefix(event.message),
        },
      ];
    if (event.type === 'partition-refused')
      return [
        { kind: 'partition', partition: event.partition, code: event.code, message: messagePrefix(event.message) },
      ];
    return [];
  });
}

const crashes = (events: readonly Stamped[]): CrashProjection[] =>
  ofType(events, 'crash').map(({ point, partition, batch, occurrence }) => ({ point, partition, batch, occurrence }));

/** The projection a faithful replay must reproduce (see `HistoryProjection`). Pure. */
export function historyProjection(events: readonly Stamped[]): HistoryProjection {
  return {
    version: SIGNATURE_VERSION,
    partitions: partitions(events),
    acknowledged: acknowledged(events),
    faults: faults(events),
    refusals: refusals(events),
    crashes: crashes(events),
  };
}

/** A run's history signature: the SHA-256 of its projection's canonical JSON (every key in a fixed order). */
export function historySignature(events: readonly Stamped[]): HistorySignature {
  const projection = historyProjection(events);
  return { sha256: createHash('sha256').update(JSON.stringify(projection)).digest('hex'), projection };
}
