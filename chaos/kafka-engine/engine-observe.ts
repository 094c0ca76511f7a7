import type { ClickHouseClient } from '@clickhouse/client';
import { setTimeout as delay } from 'node:timers/promises';
import { HarnessError } from '../../harness/base/index.ts';
import {
  type ClusterDescription,
  harnessClient,
  queryRows,
  queryValue,
  type ReplicaDescription,
} from '../../harness/cluster/index.ts';
import type { StoredRow, TopicMessage } from '../../properties/checkers/index.ts';
import type { EngineSettings } from './engine-settings.ts';
import { auditTopic, committedOffsets, topicSize } from './engine-topic.ts';
import { SOURCE_COLUMNS } from './source.ts';

/*
 * What a Kafka engine run reads from the cluster, always directly (around the proxies): which
 * replica's consumers hold which partitions, what has been stored so far, the drain after the
 * heal, and the final read of the target.
 */

const ASSIGN_DEADLINE_MS = 45_000;

/** How long the drain after the heal waits, and what it concludes from the waiting. */
export interface DrainBounds {
  /** No new row for this long, with the topic not yet all stored: the engine stopped. */
  readonly stallMs: number;
  /** The whole drain's limit: rows still coming then are a run the harness cannot judge. */
  readonly limitMs: number;
  /** No new row for this long with every partition committed to its end: what is missing is not coming. */
  readonly consumedGraceMs: number;
  readonly pollMs: number;
}

const DRAIN_BOUNDS: DrainBounds = { stallMs: 75_000, limitMs: 240_000, consumedGraceMs: 15_000, pollMs: 500 };
const SYNC_DEADLINE_S = 60;
const TOPIC_SETTLE_ROUNDS = 3;

export const replicasOf = (description: ClusterDescription): ReplicaDescription[] =>
  description.shards.flatMap((shard) => shard.replicas);

export function clientOf(description: ClusterDescription, replica: ReplicaDescription): ClickHouseClient {
  return harnessClient(replica.direct_http, { timeoutMs: 30_000, credentials: description.credentials });
}

/** Each replica's consumers' assigned partitions, read directly (around its proxies); a replica that does not answer holds none. */
export async function assignments(description: ClusterDescription, database: string): Promise<Map<string, number[]>> {
  const held = new Map<string, number[]>();
  await Promise.all(
    replicasOf(description).map(async (replica) => {
      const client = clientOf(description, replica);
      try {
        const rows = await queryRows<{ p: number[] }>(
          client,
          `SELECT assignments.partition_id AS p FROM system.kafka_consumers WHERE database = '${database}' AND table = 'events_kafka'`,
        );
        held.set(
          replica.name,
          rows.flatMap((row) => row.p.map(Number)),
        );
      } catch {
        held.set(replica.name, []);
      } finally {
        await client.close();
      }
    }),
  );
  return held;
}

/** How many times a replica refused a write as read-only, and its last such refusal's message (`system.errors`). */
export interface ReadOnlyRefusals {
  readonly count: number;
  readonly last: string;
}

/**
 * A replica's read-only refusals so far (TABLE_IS_READ_ONLY, counted since the server started).
 * Read before a Keeper cut and after its heal: on the cut replica only the view writes into the
 * run's target, so a refusal in between that names the target is the view's own INSERT meeting
 * the cut (the Kafka engine keeps no record of a failed view INSERT: `system.kafka_consumers`
 * showed no exception in four such runs on 26.7).
 */
export async function readOnlyRefusals(description: ClusterDescription, replica: string): Promise<ReadOnlyRefusals> {
  const found = replicasOf(description).find((entry) => entry.name === replica);
  if (found === undefined) return { count: 0, last: '' };
  const client = clientOf(description, found);
  try {
    const [row] = await queryRows<{ value: string; last: string }>(
      client,
      `SELECT value, last_error_message AS last FROM system.errors WHERE name = 'TABLE_IS_READ_ONLY' AND NOT remote`,
    );
    return { count: Number(row?.value ?? 0), last: row?.last ?? '' };
  } finally {
    await client.close();
  }
}

/**
 * The topic positions (`partition/offset`) stored on any replica: what has been consumed so far.
 * Positions, not ids: the producer's retries can put an id in the topic twice, and a drain that
 * counted ids ended while the second copy was still unconsumed (seed 918844267, 59 messages of one
 * partition judged lost 2 s after the heal). The judge reads one replica per shard after syncing
 * them; the drain only waits for consumption to end.
 */
async function storedPositions(description: ClusterDescription, database: string): Promise<Set<string>> {
  const positions = new Set<string>();
  for (const replica of replicasOf(description)) {
    const client = clientOf(description, replica);
    try {
      for (const row of await queryRows<{ p: number; o: string }>(
        client,
        `SELECT DISTINCT kafka_partition AS p, kafka_offset AS o FROM ${database}.events_rep`,
      ))
        positions.add(position(Number(row.p), Number(row.o)));
    } catch {
      continue;
    } finally {
      await client.close();
    }
  }
  return positions;
}

const position = (partition: number, offset: number) => `${partition}/${offset}`;

/** The topic's parsable messages, as positions: what the drain waits to see stored. */
export const parsablePositions = (topic: readonly TopicMessage[]): Set<string> =>
  new Set(topic.filter((message) => !message.broken).map((message) => position(message.partition, message.offset)));

/** How many of `owed` are in `stored`: a row of a broken message (a view that keeps them) does not count. */
export const storedOf = (owed: ReadonlySet<string>, stored: ReadonlySet<string>): number =>
  [...owed].filter((entry) => stored.has(entry)).length;

const selectRow = `SELECT ${SOURCE_COLUMNS.map(({ name }) => `ifNull(toString(${name}), 'NULL') AS ${name}`).join(', ')}, kafka_partition, kafka_offset`;

/**
 * The topic audited and the target drained against it, until the topic stops growing: a send the
 * producer still retried in the background may land after the first audit (measured: a majority
 * of the brokers paused, the rows of offsets the audit had not seen were stored).
 */
export async function settleTopic(
  description: ClusterDescription,
  database: string,
  settings: EngineSettings,
  signal: AbortSignal | undefined,
) {
  for (let round = 1; ; round++) {
    const topic = await auditTopic(description, database);
    const parsable = parsablePositions(topic);
    const ends = new Map<number, number>();
    for (const message of topic)
      ends.set(message.partition, Math.max(ends.get(message.partition) ?? 0, message.offset + 1));
    const consumedToEnd = async () => {
      if (settings.offsets !== 'broker') return false;
      const committed = await committedOffsets(description, database, database);
      return [...ends].every(([partition, end]) => (committed.get(partition) ?? 0) >= end);
    };
    const drained = await drain(parsable, () => storedPositions(description, database), consumedToEnd, signal);
    const size = await topicSize(description, database);
    if (size === topic.length) return { topic, drained };
    if (round === TOPIC_SETTLE_ROUNDS)
      throw new HarnessError(
        'KAFKA_TOPIC_GROWING',
        `the topic ${database} still grew after the producer closed (${topic.length} messages audited, ${size} now)`,
      );
  }
}

/** Until every partition is held by some replica's consumer: traffic before that would meet a group still forming. */
export async function awaitAssigned(
  description: ClusterDescription,
  database: string,
  partitions: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const deadline = Date.now() + ASSIGN_DEADLINE_MS;
  for (;;) {
    const held = new Set([...(await assignments(description, database)).values()].flat());
    if (held.size >= partitions) return;
    if (Date.now() > deadline)
      throw new HarnessError(
        'KAFKA_GROUP_NOT_FORMED',
        `the Kafka tables held ${held.size} of the topic's ${partitions} partitions ${ASSIGN_DEADLINE_MS / 1000} s after they were made`,
      );
    await delay(500, undefined, { signal });
  }
}

/**
 * Until every parsable message is stored (true: drained), or no new one came for the stall bound
 * (false); a harness error when the limit passes while rows still come. The bound is shorter once
 * the group committed every partition to its end: nothing is left to consume, so a row still
 * missing then can only have been lost (a block is written before its commit, or, under
 * `kafka_commit_every_batch`, never again).
 */
export async function drain(
  parsable: ReadonlySet<string>,
  readStored: () => Promise<ReadonlySet<string>>,
  consumedToEnd: () => Promise<boolean>,
  signal: AbortSignal | undefined,
  bounds: DrainBounds = DRAIN_BOUNDS,
): Promise<boolean> {
  const limit = Date.now() + bounds.limitMs;
  let last = -1;
  let movedAt = Date.now();
  let askedAt = 0;
  for (;;) {
    const stored = await readStored();
    if (storedOf(parsable, stored) >= parsable.size) return true;
    if (stored.size !== last) {
      last = stored.size;
      movedAt = Date.now();
    }
    const still = Date.now() - movedAt;
    if (still > bounds.stallMs) return false;
    // Rows still came within the stall bound: the engine is slower than the harness waits, not
    // stopped, and a `stalled` verdict would be false. The run cannot be judged.
    if (Date.now() > limit)
      throw new HarnessError(
        'KAFKA_DRAIN_SLOW',
        `the engine was still storing rows when the drain's ${bounds.limitMs / 1000} s ran out (${storedOf(parsable, stored)} of ${parsable.size} stored, the last new one ${(still / 1000).toFixed(0)} s before): slower than the harness waits, not stopped`,
      );
    if (still > bounds.consumedGraceMs && Date.now() - askedAt > bounds.consumedGraceMs / 3) {
      askedAt = Date.now();
      if (await consumedToEnd().catch(() => false)) return false;
    }
    await delay(bounds.pollMs, undefined, { signal });
  }
}

/**
 * The target as the shards hold it (each synced first), every replica's count, and the group's
 * commits. The views are dropped first on every replica (a drop waits for a block being written):
 * the engine goes on re-consuming and writing after the drain, and two replicas of a shard counted
 * a moment apart would differ by what it wrote in between (measured: 2,734 and 2,756 rows).
 */
export async function observe(
  description: ClusterDescription,
  database: string,
  settings: EngineSettings,
  drained: boolean,
) {
  await Promise.all(
    replicasOf(description).map(async (replica) => {
      const client = clientOf(description, replica);
      try {
        await client.command({ query: `DROP TABLE IF EXISTS ${database}.events_kafka_mv SYNC` });
      } finally {
        await client.close();
      }
    }),
  );
  const stored: StoredRow[] = [];
  const replicaCounts: { shard: string; replica: string; rows: number; contents: string }[] = [];
  for (const shard of description.shards) {
    for (const [index, replica] of shard.replicas.entries()) {
      const client = clientOf(description, replica);
      try {
        const engine = await queryValue<string>(
          client,
          `SELECT engine FROM system.tables WHERE database = '${database}' AND name = 'events_rep'`,
        );
        if (engine.startsWith('Replicated'))
          await client.command({
            query: `SYSTEM SYNC REPLICA ${database}.events_rep`,
            clickhouse_settings: { receive_timeout: SYNC_DEADLINE_S },
          });
        const [held] = await queryRows<{ rows: string; contents: string }>(
          client,
          // A sum of each row's position hash: equal for the same multiset of messages, whatever order the parts hold them in.
          `SELECT count() AS rows, toString(sum(cityHash64(kafka_partition, kafka_offset))) AS contents FROM ${database}.events_rep`,
        );
        replicaCounts.push({
          shard: shard.name,
          replica: replica.name,
          rows: Number(held?.rows ?? 0),
          contents: held?.contents ?? '',
        });
        if (index === 0)
          for (const row of await queryRows<Record<string, string | number>>(
            client,
            `${selectRow} FROM ${database}.events_rep`,
          ))
            stored.push({
              values: Object.fromEntries(SOURCE_COLUMNS.map(({ name }) => [name, String(row[name])])),
              partition: Number(row['kafka_partition']),
              offset: Number(row['kafka_offset']),
            });
      } finally {
        await client.close();
      }
    }
  }
  const committed = settings.offsets === 'broker' ? await committedOffsets(description, database, database) : undefined;
  return {
    stored,
    replicaCounts,
    committed,
    drained,
    ...(settings.handleErrorMode === 'dead_letter_queue'
      ? { deadLettered: await deadLettered(description, database) }
      : {}),
  };
}

/**
 * What every replica's `system.dead_letter_queue` logged for the run's Kafka table, after a flush.
 * A replica restarted during the run lost its log (an embedded limit, README), so the scenario
 * that draws this mode restarts none.
 */
async function deadLettered(
  description: ClusterDescription,
  database: string,
): Promise<{ partition: number; offset: number }[]> {
  const logged = await Promise.all(
    replicasOf(description).map(async (replica) => {
      const client = clientOf(description, replica);
      try {
        await client.command({ query: 'SYSTEM FLUSH LOGS' });
        return await queryRows<{ partition: number; offset: string }>(
          client,
          `SELECT kafka_partition AS partition, kafka_offset AS offset FROM system.dead_letter_queue WHERE database = '${database}' AND table = 'events_kafka'`,
        );
      } finally {
        await client.close();
      }
    }),
  );
  return logged.flat().map((row) => ({ partition: Number(row.partition), offset: Number(row.offset) }));
}
