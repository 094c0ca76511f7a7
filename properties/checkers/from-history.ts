import { type CrashPoint, eventsOfType, insertAttempts, type Stamped } from '../../harness/flow/history/index.ts';
import { type DeliveryGuarantee, formatMessageId } from '../../sinks/index.ts';
import type { AttemptRecord, GiveUpRecord, InsertBudget, RefusalRecord, WriteAfterGiveUp } from './observations.ts';

/** The seed's text of a give-up; only a failure that says it, or that the sink coded as one, is a give-up. */
export const GIVE_UP_TEXT = 'Giving up insert into ClickHouse';

export interface HistoryFacts {
  readonly attempts: readonly AttemptRecord[];
  readonly acknowledged: ReadonlySet<string>;
  /** Every id the sources handed to the pipeline (any epoch, committed or not). */
  readonly produced: ReadonlySet<string>;
  readonly refusals: readonly RefusalRecord[];
  readonly unknownOutcomes: number;
  /** Attempts of an INSERT unit (partition, batch, shard) attempted before, that reached the server. */
  readonly replays: number;
  readonly crashes: ReadonlyMap<CrashPoint, number>;
  /** Reconfigurations that began while an INSERT attempt was in flight (invoked before, ended after). */
  readonly reconfiguredInFlight: number;
  /** At-most-once queue mode: messages the full queue refused (`dropped` acks). */
  readonly queueDrops: number;
  /** Batching classes: committed epochs cut into more than one batch (each batch its own token). */
  readonly multiBatchEpochs: number;
  /** Batching classes: every message of a batch the runtime marked `delivered`. */
  readonly deliveredIds: ReadonlySet<string>;
  /** INSERT attempts that started while two recorded fault windows were both in force. */
  readonly overlappingFaults: number;
}

/**
 * Reads the facts the checkers need out of a run's history. "Acknowledged" follows the history's
 * own definition: a committed epoch (or the committed progress a later worker found in the store)
 * for the batching classes and at-least-once; a `delivered` ack — or a `queued` one whose own
 * INSERT completed `ok` — for at-most-once, whose epochs commit before the write.
 */
export function factsFromHistory(
  events: readonly Stamped[],
  guarantee: DeliveryGuarantee,
  generation: number,
): HistoryFacts {
  const records = insertAttempts(events);
  const attempts: AttemptRecord[] = records.map((record) => ({
    writer: record.invoke.writer,
    partition: record.invoke.partition,
    batch: record.invoke.batch,
    shard: record.invoke.shard,
    endpoint: record.invoke.endpoint,
    dedupToken: record.invoke.dedupToken,
    queryId: record.invoke.queryId,
    messageIds: record.invoke.messageIds,
    outcome: record.outcome,
    sent: record.sent,
    sentBytes: record.sentBytes,
    errorCode: record.complete?.error?.code,
    timedOut: record.complete?.error?.timedOut === true,
    invokedAt: record.invoke.at,
    startedAt: record.complete?.startedAt ?? record.invoke.at,
    endedAt: record.complete?.endedAt ?? Number.POSITIVE_INFINITY,
  }));

  const ids = (partition: number, fromSeq: number, toSeq: number) => idRange(generation, partition, fromSeq, toSeq);

  const produced = new Set<string>();
  for (const epoch of [...eventsOfType(events, 'epoch-commit'), ...eventsOfType(events, 'epoch-failed')]) {
    for (const id of ids(epoch.partition, epoch.fromSeq, epoch.toSeq)) produced.add(id);
  }
  // A kill from outside can cut off a commit's event; the store's progress still shows the epoch was read.
  for (const snapshot of eventsOfType(events, 'state-snapshot'))
    for (const id of ids(snapshot.partition, 0, snapshot.nextSeq)) produced.add(id);

  const acknowledged = new Set<string>();
  if (guarantee === 'at-most-once') {
    const okQueries = new Set(records.filter((r) => r.outcome === 'ok').flatMap((r) => r.invoke.messageIds));
    for (const acks of eventsOfType(events, 'acks')) {
      for (const { id, ack } of acks.acks)
        if (ack === 'delivered' || (ack === 'queued' && okQueries.has(id))) acknowledged.add(id);
    }
  } else {
    for (const commit of eventsOfType(events, 'epoch-commit')) for (const id of commit.messageIds) acknowledged.add(id);
    for (const snapshot of eventsOfType(events, 'state-snapshot'))
      for (const id of ids(snapshot.partition, 0, snapshot.nextSeq)) acknowledged.add(id);
  }

  const seenUnits = new Set<string>();
  let replays = 0;
  for (const record of records) {
    const unit = `${record.invoke.sink}|${record.invoke.partition}|${record.invoke.batch}|${record.invoke.shard ?? '-'}`;
    const reached = record.sent || record.outcome === 'ok';
    if (seenUnits.has(unit) && reached) replays += 1;
    seenUnits.add(unit);
  }

  const crashes = new Map<CrashPoint, number>();
  for (const crash of eventsOfType(events, 'crash')) crashes.set(crash.point, (crashes.get(crash.point) ?? 0) + 1);

  const reconfiguredInFlight = eventsOfType(events, 'reconfigured').filter((event) =>
    attempts.some((attempt) => attempt.invokedAt < event.startedAt && attempt.endedAt > event.startedAt),
  ).length;

  return {
    attempts,
    acknowledged,
    produced,
    refusals: eventsOfType(events, 'partition-refused').map((event) => ({
      partition: event.partition,
      message: event.message,
      at: event.at,
    })),
    unknownOutcomes: attempts.filter((attempt) => attempt.outcome === 'unknown').length,
    replays,
    crashes,
    reconfiguredInFlight,
    queueDrops: eventsOfType(events, 'acks').reduce(
      (total, acks) => total + acks.acks.filter(({ ack }) => ack === 'dropped').length,
      0,
    ),
    multiBatchEpochs: eventsOfType(events, 'epoch-commit').filter((commit) => commit.batches.length > 1).length,
    deliveredIds: deliveredMessages(events, attempts),
    overlappingFaults: underTwoFaults(events, attempts),
  };
}

/**
 * The attempts whose request began inside two fault windows at once (applied before it, healed
 * after it began), from the nemesis's recorded windows alone: a window never healed lasts to the
 * end of the run.
 */
function underTwoFaults(events: readonly Stamped[], attempts: readonly AttemptRecord[]): number {
  const ends = new Map(eventsOfType(events, 'fault-end').map((end) => [end.window, end.healStartedAt ?? end.at]));
  const windows = eventsOfType(events, 'fault-start').map((start) => ({
    from: start.at,
    to: ends.get(start.window) ?? Number.POSITIVE_INFINITY,
  }));
  return attempts.filter(
    (attempt) => windows.filter(({ from, to }) => from <= attempt.startedAt && attempt.startedAt < to).length >= 2,
  ).length;
}

const batchKey = (partition: number, batch: number) => `${partition}|${batch}`;

/**
 * Outbox batch (`partition|batch`) -> its messages: the ids of the epoch commit that cut it, in
 * order, split by the batches' counts, and the ids of every attempt that carried it. Both, so a
 * batch marked delivered without any INSERT is still known by its rows.
 */
function batchMessages(events: readonly Stamped[], attempts: readonly AttemptRecord[]): Map<string, Set<string>> {
  const batches = new Map<string, Set<string>>();
  const add = (key: string, ids: readonly string[]) => {
    const known = batches.get(key) ?? new Set<string>();
    for (const id of ids) known.add(id);
    batches.set(key, known);
  };
  for (const commit of eventsOfType(events, 'epoch-commit')) {
    let offset = 0;
    for (const batch of commit.batches) {
      add(batchKey(commit.partition, batch.number), commit.messageIds.slice(offset, offset + batch.messages));
      offset += batch.messages;
    }
  }
  for (const attempt of attempts) add(batchKey(attempt.partition, attempt.batch), attempt.messageIds);
  return batches;
}

/** Every message of a batch with a `delivered` event. */
function deliveredMessages(events: readonly Stamped[], attempts: readonly AttemptRecord[]): Set<string> {
  const batches = batchMessages(events, attempts);
  return new Set(
    eventsOfType(events, 'delivered').flatMap((event) => [
      ...(batches.get(batchKey(event.partition, event.batch)) ?? []),
    ]),
  );
}

function idRange(generation: number, partition: number, fromSeq: number, toSeq: number): string[] {
  return Array.from({ length: Math.max(0, toSeq - fromSeq) }, (_, i) =>
    formatMessageId({ generation, partition, seq: fromSeq + i }),
  );
}

/**
 * The give-ups of a run: every batching `delivery-failed` and at-least-once `epoch-failed` that
 * the sink coded or worded as a give-up, each with the attempts of the insert that gave up (the
 * same worker, partition, batch and shard, before the give-up) and the spec's budget then.
 */
export function giveUpsFromHistory(
  events: readonly Stamped[],
  attempts: readonly AttemptRecord[],
  generation: number,
  insertBudgetDuring: (from: number, to: number) => InsertBudget,
): { readonly giveUps: GiveUpRecord[]; readonly writesAfterGiveUp: WriteAfterGiveUp[] } {
  const launches = eventsOfType(events, 'worker-launch');
  const batches = batchMessages(events, attempts);
  const finalAfter = (partition: number, at: number) =>
    !launches.some((launch) => launch.at > at && launch.partitions.includes(partition));
  const failures = [
    ...eventsOfType(events, 'delivery-failed').map((event) => ({
      event,
      batch: event.batch,
      token: event.token as string | undefined,
      ids: undefined as string[] | undefined,
    })),
    ...eventsOfType(events, 'epoch-failed').map((event) => ({
      event,
      batch: event.epoch,
      token: undefined,
      ids: idRange(generation, event.partition, event.fromSeq, event.toSeq),
    })),
  ];
  const giveUps: GiveUpRecord[] = [];
  for (const { event, batch, token, ids } of failures) {
    const isGiveUp =
      event.giveUp !== undefined ||
      event.error.code === 'SINK_INSERT_GAVE_UP' ||
      event.error.message.startsWith(GIVE_UP_TEXT);
    if (!isGiveUp) continue;
    const ofBatch = attempts.filter(
      (attempt) =>
        attempt.writer === event.writer &&
        attempt.partition === event.partition &&
        attempt.batch === batch &&
        attempt.invokedAt < event.at,
    );
    const shard = event.giveUp?.shard ?? ofBatch.at(-1)?.shard ?? null;
    const ofInsert = ofBatch.filter((attempt) => attempt.shard === shard);
    giveUps.push({
      writer: event.writer,
      partition: event.partition,
      batch,
      ...(token === undefined ? {} : { token }),
      at: event.at,
      message: event.error.message,
      ...(event.error.code === undefined ? {} : { code: event.error.code }),
      ...(event.giveUp === undefined ? {} : { claim: event.giveUp }),
      attempts: ofInsert,
      messageIds: ids ?? [...(batches.get(batchKey(event.partition, batch)) ?? [])],
      budget: insertBudgetDuring(ofInsert[0]?.invokedAt ?? event.at, event.at),
      final: finalAfter(event.partition, event.at),
    });
  }
  // Refused means refused without an INSERT: the history's attempts of that instance since its
  // give-up decide, not the error code the instance answered with.
  const writesAfterGiveUp = eventsOfType(events, 'write-after-give-up').map((event) => {
    const since =
      giveUps.findLast(
        (giveUp) => giveUp.writer === event.writer && giveUp.partition === event.partition && giveUp.at < event.at,
      )?.at ?? 0;
    const sent = attempts.find(
      (attempt) =>
        attempt.writer === event.writer &&
        attempt.partition === event.partition &&
        attempt.invokedAt > since &&
        attempt.invokedAt < event.at,
    );
    const answered = event.error?.message.split('\n')[0];
    const error =
      sent === undefined
        ? answered
        : `the INSERT ${sent.queryId} went out first${answered ? ` (then: ${answered})` : ''}`;
    return {
      partition: event.partition,
      batch: event.batch,
      refused: event.refused && sent === undefined,
      ...(error === undefined ? {} : { error }),
    };
  });
  return { giveUps, writesAfterGiveUp };
}
