import { divergedOn } from './anomaly-category.ts';
import { anomaly, type Anomaly } from './check-result.ts';
import type { DeliveryCounts } from './total-queue-checker.ts';

/** A row as `toString` prints each column, by column name. */
export type RowValues = Readonly<Record<string, string>>;

/** One message of the topic as the harness's own reader found it after the run. */
export interface TopicMessage {
  readonly partition: number;
  readonly offset: number;
  readonly id: number;
  /** Produced unparsable on purpose: the table's settings say it may be dropped. */
  readonly broken: boolean;
}

/** One row of the target, every source column as `toString` printed it, and where it was consumed from. */
export interface StoredRow {
  readonly values: RowValues;
  readonly partition: number;
  readonly offset: number;
}

/** What a Kafka engine run left, read after the heal and the drain. */
export interface EngineObservation {
  /** Every message the topic holds (the engine's whole input). */
  readonly topic: readonly TopicMessage[];
  /** Ids the broker acknowledged to the producer (acks = all). */
  readonly acknowledged: readonly number[];
  /** The target's rows, one replica per shard (the shards' union is the table). */
  readonly stored: readonly StoredRow[];
  /**
   * Rows per replica, by shard: a shard's replicas must agree once synced. `contents` is a
   * fingerprint of the rows' (partition, offset) multiset, so replicas that hold as many rows but
   * not the same ones disagree too; absent in runs stored before it was read.
   */
  readonly replicaCounts: readonly {
    readonly shard: string;
    readonly replica: string;
    readonly rows: number;
    readonly contents?: string;
  }[];
  /** The consumer group's committed offset per partition (the next to read), where the broker keeps them. */
  readonly committed: ReadonlyMap<number, number> | undefined;
  /** Every parsable message was stored before the drain's bound ran out. */
  readonly drained: boolean;
  /**
   * Where `kafka_handle_error_mode = 'dead_letter_queue'`: the positions every replica's
   * `system.dead_letter_queue` logged for the run's Kafka table. Absent under the other modes.
   */
  readonly deadLettered?: readonly { readonly partition: number; readonly offset: number }[];
}

export interface EngineCheck {
  readonly anomalies: readonly Anomaly[];
  readonly counts: DeliveryCounts;
  /** Broken messages the table dropped, as its settings allow. */
  readonly brokenDropped: number;
  /** Distinct messages (topic positions) the target holds. */
  readonly stored: number;
}

const key = (partition: number, offset: number) => `${partition}/${offset}`;

/**
 * The Kafka engine path (`chaos/kafka-engine/`): at-least-once, judged message by message against the topic. A parsable message of the topic
 * the target lacks is `lost` when the engine had moved past it (a later offset of its partition
 * is stored, or the group committed past it): it consumed the message and never wrote it. One
 * with nothing after it consumed is `stalled` when the drain ran out (the engine stopped moving),
 * never excused. A stored row that is not its message's source row, came from a broken message
 * or from no message of the topic is `unexpected`. A message stored twice is `duplicated`,
 * which at-least-once allows. Messages are positions (partition, offset), not ids: an id the
 * producer's retry put in the topic twice is two messages, each owed once, and storing both is no
 * re-delivery. Under the dead letter queue mode a broken message the queue lacks
 * is `lost` (that mode drops nothing). A message the broker acknowledged that the topic lacks is `lost`
 * too, the broker's: the path as a whole owed it. Where the configuration owes `none` (a setting
 * that commits before it writes), losses are counted and allowed.
 */
export function checkEngineRun(
  observation: EngineObservation,
  expectedRow: (id: number) => RowValues,
  owed: 'at-least-once' | 'none' = 'at-least-once',
): EngineCheck {
  const byPosition = new Map(observation.topic.map((message) => [key(message.partition, message.offset), message]));
  const inTopic = new Set(observation.topic.map((message) => message.id));
  /** Rows stored per topic position: the engine consumes positions, and the source may hold one id at two (its producer's retries). */
  const copies = new Map<string, number>();
  const storedIds = new Set<number>();
  const unexpected: string[] = [];
  const furthest = new Map<number, number>();
  for (const row of observation.stored) {
    const id = Number(row.values.id);
    const message = byPosition.get(key(row.partition, row.offset));
    furthest.set(row.partition, Math.max(furthest.get(row.partition) ?? -1, row.offset));
    if (message === undefined || message.id !== id || message.broken) {
      unexpected.push(
        `${row.values.id} (from ${key(row.partition, row.offset)}, which holds ${message === undefined ? 'nothing' : message.broken ? 'a broken message' : `id ${message.id}`})`,
      );
      continue;
    }
    const wrong = differingColumn(row.values, expectedRow(id));
    if (wrong !== undefined) unexpected.push(`${id} (${wrong})`);
    copies.set(key(row.partition, row.offset), (copies.get(key(row.partition, row.offset)) ?? 0) + 1);
    storedIds.add(id);
  }
  const lost: string[] = [];
  const stalled: string[] = [];
  let brokenDropped = 0;
  const deadLettered =
    observation.deadLettered === undefined
      ? undefined
      : new Set(observation.deadLettered.map((entry) => key(entry.partition, entry.offset)));
  for (const message of observation.topic) {
    if (message.broken) {
      // Under the dead letter queue nothing is dropped: a broken message is owed to the queue.
      if (deadLettered !== undefined && !deadLettered.has(key(message.partition, message.offset)))
        lost.push(
          `broken message ${message.id} (${key(message.partition, message.offset)}), not in the dead letter queue`,
        );
      else if (deadLettered === undefined) brokenDropped += 1;
      continue;
    }
    if (copies.has(key(message.partition, message.offset))) continue;
    const passed =
      (furthest.get(message.partition) ?? -1) > message.offset ||
      (observation.committed?.get(message.partition) ?? 0) > message.offset;
    const where = `${message.id} (${key(message.partition, message.offset)})`;
    if (passed) lost.push(where);
    else if (!observation.drained) stalled.push(where);
    else lost.push(where);
  }
  for (const id of observation.acknowledged) if (!inTopic.has(id)) lost.push(`${id} (acknowledged, not in the topic)`);
  const duplicated = [...copies.entries()].filter(([, n]) => n > 1);
  // Where nothing is owed, a loss is counted, never a violation; a stop and a wrong row still are.
  const anomalies = [
    anomaly('lost', owed === 'none' ? [] : lost),
    anomaly('unexpected', unexpected),
    anomaly('stalled', stalled),
  ];
  for (const [shard, counts] of groupBy(observation.replicaCounts, (count) => count.shard)) {
    const [first, ...others] = counts;
    for (const other of others)
      if (first !== undefined && other.rows !== first.rows)
        anomalies.push(
          anomaly(divergedOn(other.replica), [`${shard}: ${other.rows} rows, ${first.replica} ${first.rows}`]),
        );
      else if (first?.contents !== undefined && other.contents !== undefined && other.contents !== first.contents)
        anomalies.push(
          anomaly(divergedOn(other.replica), [
            `${shard}: ${other.rows} rows, as many as ${first.replica}, but not the same messages`,
          ]),
        );
  }
  const acknowledged = new Set(observation.acknowledged);
  return {
    anomalies: anomalies.filter((found) => found.count > 0),
    counts: {
      attempted: observation.topic.length,
      acknowledged: observation.acknowledged.length,
      lost: lost.length,
      duplicated: duplicated.reduce((sum, [, n]) => sum + n - 1, 0),
      unexpected: unexpected.length,
      // Jepsen's sense: stored although the brokers never acknowledged its send (it timed out, and landed).
      recovered: [...storedIds].filter((id) => !acknowledged.has(id)).length,
      gaveUp: 0,
    },
    brokenDropped,
    stored: copies.size,
  };
}

/** The first column of a stored row that differs from its source row, named with both values. */
function differingColumn(values: RowValues, expected: RowValues): string | undefined {
  for (const name of Object.keys(expected))
    if (values[name] !== expected[name])
      return `${name}: stored ${JSON.stringify(values[name])}, produced ${JSON.stringify(expected[name])}`;
  return undefined;
}

function groupBy<T>(items: readonly T[], by: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(by(item), [...(groups.get(by(item)) ?? []), item]);
  return groups;
}
