import fc from 'fast-check';
import { SOURCE_COLUMNS } from './source.ts';

/**
 * The Kafka table's settings a run draws, from seed 003's list. `offsets` is where the engine
 * keeps what it consumed: the broker's consumer group (`Kafka`, the classic engine) or Keeper
 * (`kafka_keeper_path` / `kafka_replica_name`, StorageKafka2, experimental).
 */
export interface EngineSettings {
  readonly offsets: 'broker' | 'keeper';
  readonly numConsumers: 1 | 2;
  readonly threadPerConsumer: boolean;
  readonly maxBlockSize: number;
  readonly flushIntervalMs: number;
  readonly pollMaxBatchSize: number;
  readonly commitEveryBatch: boolean;
  readonly handleErrorMode: ErrorMode;
  readonly skipBrokenMessages: number;
}

/**
 * What becomes of a message that does not parse: it stops the table unless skipped (`default`),
 * comes as a row with `_error` set (`stream`), or goes to `system.dead_letter_queue`.
 */
export type ErrorMode = 'default' | 'stream' | 'dead_letter_queue';

/**
 * Settings as a user writes them. Broken messages are produced only where the table says what
 * becomes of them (skipped, streamed to `_error`, or dead-lettered): under `default` with no skip, one broken
 * message stops the consumer for good, which is the engine's documented behaviour, not a fault.
 */
export const arbEngineSettings: fc.Arbitrary<EngineSettings> = fc
  .record({
    offsets: fc.constantFrom('broker' as const, 'keeper' as const),
    numConsumers: fc.constantFrom(1 as const, 2 as const),
    threadPerConsumer: fc.boolean(),
    maxBlockSize: fc.integer({ min: 16, max: 4096 }),
    flushIntervalMs: fc.integer({ min: 100, max: 2500 }),
    pollMaxBatchSize: fc.integer({ min: 16, max: 4096 }),
    commitEveryBatch: fc.boolean(),
    handleErrorMode: fc.constantFrom<ErrorMode>('default', 'stream', 'dead_letter_queue'),
    skipBrokenMessages: fc.integer({ min: 0, max: 4 }),
  })
  // StorageKafka2 allows several consumers only with a thread each (seed 003).
  .map((settings) =>
    settings.offsets === 'keeper' && settings.numConsumers > 1 ? { ...settings, threadPerConsumer: true } : settings,
  );

/**
 * What a run's configuration owes: at-least-once, or nothing under `kafka_commit_every_batch = 1`,
 * which commits each batch before the block holding it is written (ClickHouse PR #5308: "a
 * trade-off between losing some messages or reading them twice"). Measured on 26.7: 95 of 400
 * rows lost, never re-read, under a 206 ms latency on one consumer's broker links.
 */
export const owedBy = (settings: EngineSettings): 'at-least-once' | 'none' =>
  settings.commitEveryBatch ? 'none' : 'at-least-once';

/** How many unparsable messages a run may produce under these settings: none where one would stop the table. */
export const brokenAllowed = (settings: EngineSettings): number =>
  settings.handleErrorMode === 'default' ? settings.skipBrokenMessages : 4;

/** Where a run's Kafka table reads from and who it is, per replica. */
export interface EngineTableTarget {
  readonly database: string;
  readonly topic: string;
  readonly group: string;
  /** This replica's own bootstrap address of every broker (its proxies). */
  readonly brokers: readonly string[];
}

const columns = SOURCE_COLUMNS.map((column) => `${column.name} ${column.type}`).join(', ');
const names = SOURCE_COLUMNS.map((column) => column.name).join(', ');

/**
 * `events_rep`: the replicated target, with the position each row was consumed from
 * (`kafka_partition`, `kafka_offset`); `replicated = false` is the setup mistake of a plain MergeTree.
 */
export function targetTableDdl(database: string, dedupOff: boolean, replicated = true): string {
  const columnsWithPlace = `${columns}, kafka_partition UInt32, kafka_offset UInt64`;
  if (!replicated) return `CREATE TABLE ${database}.events_rep (${columnsWithPlace}) ENGINE = MergeTree ORDER BY id`;
  const dedup = dedupOff ? ' SETTINGS replicated_deduplication_window = 0' : '';
  return `CREATE TABLE ${database}.events_rep (${columnsWithPlace}) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/${database}/events_rep', '{replica}') ORDER BY id${dedup}`;
}

/** `events_kafka`: the Kafka table of one replica, with the run's drawn settings. */
export function kafkaTableDdl(target: EngineTableTarget, settings: EngineSettings): string {
  const kafka2 =
    settings.offsets === 'keeper'
      ? [`kafka_keeper_path = '/clickhouse/kafka/${target.database}'`, `kafka_replica_name = '{replica}'`]
      : [];
  const list = [
    `kafka_broker_list = '${target.brokers.join(',')}'`,
    `kafka_topic_list = '${target.topic}'`,
    `kafka_group_name = '${target.group}'`,
    `kafka_format = 'JSONEachRow'`,
    `kafka_num_consumers = ${settings.numConsumers}`,
    `kafka_thread_per_consumer = ${settings.threadPerConsumer ? 1 : 0}`,
    `kafka_max_block_size = ${settings.maxBlockSize}`,
    `kafka_flush_interval_ms = ${settings.flushIntervalMs}`,
    `kafka_poll_max_batch_size = ${settings.pollMaxBatchSize}`,
    `kafka_commit_every_batch = ${settings.commitEveryBatch ? 1 : 0}`,
    `kafka_handle_error_mode = '${settings.handleErrorMode}'`,
    `kafka_skip_broken_messages = ${settings.skipBrokenMessages}`,
    ...kafka2,
  ];
  const experimental = settings.offsets === 'keeper' ? ', allow_experimental_kafka_offsets_storage_in_keeper = 1' : '';
  return `CREATE TABLE ${target.database}.events_kafka (${columns}) ENGINE = Kafka SETTINGS ${list.join(', ')}${experimental}`;
}

/**
 * `events_kafka_mv`: moves each consumed block into the target. Under `stream` a message that did
 * not parse comes as a row with `_error` set; the view keeps only the rows that parsed, as a
 * user of that mode must (`misconfiguredView` is the mistake of not filtering).
 */
export function viewDdl(database: string, settings: EngineSettings, filterErrors = true): string {
  const where = settings.handleErrorMode === 'stream' && filterErrors ? ` WHERE length(_error) = 0` : '';
  return `CREATE MATERIALIZED VIEW ${database}.events_kafka_mv TO ${database}.events_rep AS SELECT ${names}, _partition AS kafka_partition, _offset AS kafka_offset FROM ${database}.events_kafka${where}`;
}

/** One line for the report: the settings a run drew. */
export function describeSettings(settings: EngineSettings): string {
  return [
    `offsets in ${settings.offsets}`,
    `consumers ${settings.numConsumers}${settings.threadPerConsumer ? ' (thread each)' : ''}`,
    `max_block_size ${settings.maxBlockSize}`,
    `flush ${settings.flushIntervalMs} ms`,
    `poll batch ${settings.pollMaxBatchSize}`,
    `commit_every_batch ${settings.commitEveryBatch ? 1 : 0}`,
    `error mode ${settings.handleErrorMode}`,
    `skip_broken ${settings.skipBrokenMessages}`,
  ].join(', ');
}
