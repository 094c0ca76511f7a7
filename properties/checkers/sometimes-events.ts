import type { GroundTruth } from '../../harness/oracle/index.ts';
import type { HistoryFacts } from './from-history.ts';
import type { Observations } from './observations.ts';
import { dedupHits, tokensInsertedTwice, type UnknownResolution } from './server-log.ts';
import { viewExcess } from './view-checker.ts';

/** What one judged run offers a "sometimes" event to be counted from: its history's facts and what the servers held and logged. */
export interface RunSightings {
  readonly facts: HistoryFacts;
  readonly observations: Observations;
  readonly unknown: UnknownResolution;
  readonly truth: GroundTruth;
  /** The run's target had ClickHouse's block dedup off (or short). */
  readonly serverDedupOff: boolean;
  /** The query ids of the attempts an aimed fault demonstrably met (`fault-evidence.ts`). */
  readonly faultMet: ReadonlySet<string>;
}

/**
 * A "sometimes" event (Antithesis' term): something a scenario needs to have happened at least
 * once before its pass means anything. A scenario declares it by name (`Coverage`), the judge
 * counts it in every run, the ledger adds the counts up over a scenario's runs.
 */
export interface SometimesEvent {
  /** The coverage line when it never happened. */
  readonly missing: string;
  /** Times it happened in one run. */
  readonly count: (run: RunSightings) => number;
}

/** The server's answer to a quorum INSERT whose part is in and whose quorum it could not verify. */
const UNKNOWN_STATUS_OF_INSERT = '319';

/** Every "sometimes" event, by the name a scenario declares it under; a new one is one entry here. */
export const SOMETIMES_EVENTS = {
  /** An unknown-outcome INSERT the server finished (committed, or dropped as a duplicate). */
  unknownLanded: {
    missing: 'no unknown-outcome INSERT that had committed (unknown → landed)',
    count: (run) => run.unknown.landed.length,
  },
  /** An unknown-outcome INSERT the server never finished. */
  unknownAbsent: {
    missing: 'no unknown-outcome INSERT that never reached the server (unknown → absent)',
    count: (run) => run.unknown.absent.length,
  },
  /** An attempt of a batch/epoch already attempted before reached ClickHouse. */
  replay: { missing: 'no replay reached ClickHouse', count: (run) => run.facts.replays },
  /** ClickHouse deduplicated an INSERT (query_log ProfileEvents DuplicatedInsertedBlocks > 0). */
  dedupHit: { missing: 'ClickHouse deduplicated no insert', count: (run) => dedupHits(run.truth.serverInserts) },
  /** The topology guard refused a start. */
  refusal: { missing: 'the topology guard refused nothing', count: (run) => run.facts.refusals.length },
  /** A dynamic reconfiguration began while an INSERT was in flight. */
  reconfiguredInFlight: {
    missing: 'no reconfiguration met an INSERT in flight',
    count: (run) => run.facts.reconfiguredInFlight,
  },
  /** The at-most-once queue dropped a message because it was full. */
  queueDrop: { missing: 'the at-most-once queue never overflowed', count: (run) => run.facts.queueDrops },
  /** A batching class cut a committed epoch into several batches, each under its own token. */
  multiBatchEpoch: { missing: 'no epoch was cut into several batches', count: (run) => run.facts.multiBatchEpochs },
  /** The sink gave up an insert, then refused the retry on the same instance (the whole path). */
  giveUp: {
    missing: 'no give-up followed by a refused retry on the same instance',
    count: ({ observations }) =>
      observations.giveUps.filter((giveUp) =>
        observations.writesAfterGiveUp.some(
          (write) => write.refused && write.partition === giveUp.partition && write.batch === giveUp.batch,
        ),
      ).length,
  },
  /** The pipeline acknowledged a message: a sink that delivers nothing loses nothing it promised, and proves nothing. */
  delivered: { missing: 'the pipeline acknowledged no message', count: (run) => run.facts.acknowledged.size },
  /** A replay arrived after its token left ClickHouse's dedup window (and was inserted again). */
  windowExceeded: {
    missing: 'no replay arrived after its token had left the dedup window',
    count: (run) => tokensInsertedTwice(run.truth.serverInserts),
  },
  /** A token-less class ran without the server's block dedup, which could hide its duplicates. */
  serverDedupOff: {
    missing: "no run with the server's block dedup off (its duplicates could have been hidden)",
    count: (run) => (run.serverDedupOff ? 1 : 0),
  },
  /** A scenario about the table's dedup also ran with it kept (both rows of its configuration matrix). */
  serverDedupOn: { missing: "no run with the server's block dedup kept", count: (run) => (run.serverDedupOff ? 0 : 1) },
  /** The server answered an INSERT UNKNOWN_STATUS_OF_INSERT (its part in, its quorum not verified). */
  unknownStatus: {
    missing: 'the server answered no INSERT UNKNOWN_STATUS_OF_INSERT (no quorum left unverified)',
    count: (run) => run.facts.attempts.filter((attempt) => attempt.errorCode === UNKNOWN_STATUS_OF_INSERT).length,
  },
  /** A replay the table dropped as a duplicate reached its materialized view anyway (view dedup off). */
  viewReceivedReplay: {
    missing: 'no replay the table dropped reached its materialized view',
    count: (run) => (run.truth.view === undefined ? 0 : viewExcess(run.truth.replicas, run.truth.view).length),
  },
  /**
   * An INSERT whose outcome the sink could not know was tried again under the same dedup token:
   * the one path on which exactly-once rests (the server can drop the retry only if the token is
   * the one it already holds). Owed by the token-sending classes in `unknown-outcome`, where an
   * unknown outcome is the whole point; a pass there without one would not have shown it.
   */
  unknownRetriedSameToken: {
    missing: 'no unknown-outcome INSERT was retried under its dedup token',
    count: ({ facts }) =>
      facts.attempts.filter(
        (unknown) =>
          unknown.outcome === 'unknown' &&
          unknown.dedupToken !== undefined &&
          facts.attempts.some(
            (retry) =>
              retry.writer === unknown.writer &&
              retry.partition === unknown.partition &&
              retry.batch === unknown.batch &&
              retry.dedupToken === unknown.dedupToken &&
              retry.invokedAt > unknown.invokedAt,
          ),
      ).length,
  },
  /**
   * A fault demonstrably met a later attempt (a retry, or a replay) of an INSERT an earlier fault
   * had demonstrably met: the same partition, batch and shard, by the attempts' own records. Only
   * a fault aimed at the nth attempt of an INSERT shows it; a pass without it never ran a retry
   * on a faulty link.
   */
  retryMetFault: {
    missing: 'no fault met a retry or replay of an INSERT a fault had already met',
    count: ({ facts, faultMet }) => {
      const met = facts.attempts.filter((attempt) => faultMet.has(attempt.queryId));
      return met.filter((later) =>
        met.some(
          (earlier) =>
            earlier.partition === later.partition &&
            earlier.batch === later.batch &&
            earlier.shard === later.shard &&
            earlier.invokedAt < later.invokedAt,
        ),
      ).length;
    },
  },
  /** An INSERT attempt began while two faults were in force at once (by the recorded windows). */
  overlappingFaults: {
    missing: 'no INSERT met two faults in force at once',
    count: ({ facts }) => facts.overlappingFaults,
  },
} as const satisfies Record<string, SometimesEvent>;

export type SometimesEventName = keyof typeof SOMETIMES_EVENTS;

export const SOMETIMES_EVENT_NAMES = Object.keys(SOMETIMES_EVENTS) as SometimesEventName[];

/** Times each event happened in one run. */
export const sightingsOf = (run: RunSightings): Record<SometimesEventName, number> =>
  Object.fromEntries(
    SOMETIMES_EVENT_NAMES.map((name) => [name, (SOMETIMES_EVENTS[name] as SometimesEvent).count(run)]),
  ) as Record<SometimesEventName, number>;

/** No event seen yet. */
export const NO_SIGHTINGS = Object.fromEntries(SOMETIMES_EVENT_NAMES.map((name) => [name, 0])) as Record<
  SometimesEventName,
  number
>;
