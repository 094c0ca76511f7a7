import { type DeliveryGuarantee, isSinkClassName, SINK_CLASS_NAMES, type SinkClassName } from '../../sinks/index.ts';
import { OWED_BY_CLASS } from './owed-by-class.ts';

/**
 * ClickHouse's own Kafka table engine, judged beside the four sinks (`chaos/kafka-engine/`): the
 * path a user picks instead of a stream processor's sink. It is not a sink of `sinks/`: no spec,
 * no worker; the class name is the report's.
 */
export const KAFKA_ENGINE_CLASS = 'ClickHouseKafkaEngine';
export type EngineClassName = typeof KAFKA_ENGINE_CLASS;

/**
 * Seed 002's staged atomic publication (`sinks/staged/`, judged by `chaos/staged-publication/`):
 * a loader of its own beside the sinks, with readers in the history.
 */
export const STAGED_LOADER_CLASS = 'StagedPartitionLoader';
export type StagedLoaderClassName = typeof STAGED_LOADER_CLASS;

/** Every class a chaos job judges: the sinks, then the Kafka engine, then the staged loader. */
export type JudgedClassName = SinkClassName | EngineClassName | StagedLoaderClassName;
export const JUDGED_CLASS_NAMES: readonly JudgedClassName[] = [
  ...SINK_CLASS_NAMES,
  KAFKA_ENGINE_CLASS,
  STAGED_LOADER_CLASS,
];

export const isJudgedClassName = (value: string): value is JudgedClassName =>
  value === KAFKA_ENGINE_CLASS || value === STAGED_LOADER_CLASS || isSinkClassName(value);

/**
 * What a class owes where its table keeps block dedup: the Kafka engine owes at-least-once (seed
 * 003); the staged loader exactly-once, except where it publishes with ATTACH FROM, which owes
 * at-least-once (its configuration rows say which operation owes what).
 */
export const classGuarantee = (name: JudgedClassName): DeliveryGuarantee =>
  name === KAFKA_ENGINE_CLASS
    ? 'at-least-once'
    : name === STAGED_LOADER_CLASS
      ? 'exactly-once'
      : OWED_BY_CLASS[name].guarantee;

/**
 * What one configuration owes: its class's guarantee, or `none` where a setting trades it away
 * (the Kafka engine's `kafka_commit_every_batch = 1` commits each batch before the block holding
 * it is written: ClickHouse's own words for it are "losing some messages or reading them twice").
 */
export type OwedGuarantee = DeliveryGuarantee | 'none';

/** The path a class stands for, as the side-by-side table names it. */
export const classPath = (name: JudgedClassName): string =>
  name === KAFKA_ENGINE_CLASS
    ? "ClickHouse's Kafka engine"
    : name === STAGED_LOADER_CLASS
      ? 'staged publication (seed 002)'
      : 'a Flow sink';
