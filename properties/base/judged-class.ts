import { type DeliveryGuarantee, isSinkClassName, SINK_CLASS_NAMES, type SinkClassName } from '../../sinks/index.ts';
import { OWED_BY_CLASS } from './owed-by-class.ts';

/**
 * ClickHouse's own Kafka table engine, judged beside the four sinks (`chaos/kafka-engine/`): the
 * path a user picks instead of a stream processor's sink. It is not a sink of `sinks/`: no spec,
 * no worker; the class name is the report's.
 */
export const KAFKA_ENGINE_CLASS = 'ClickHouseKafkaEngine';
export type EngineClassName = typeof KAFKA_ENGINE_CLASS;

/** Every class a chaos job judges: the sinks, then the Kafka engine. */
export type JudgedClassName = SinkClassName | EngineClassName;
export const JUDGED_CLASS_NAMES: readonly JudgedClassName[] = [...SINK_CLASS_NAMES, KAFKA_ENGINE_CLASS];

export const isJudgedClassName = (value: string): value is JudgedClassName =>
  value === KAFKA_ENGINE_CLASS || isSinkClassName(value);

/** What a class owes where its table keeps block dedup: the Kafka engine owes at-least-once (seed 003). */
export const classGuarantee = (name: JudgedClassName): DeliveryGuarantee =>
  name === KAFKA_ENGINE_CLASS ? 'at-least-once' : OWED_BY_CLASS[name].guarantee;

/**
 * What one configuration owes: its class's guarantee, or `none` where a setting trades it away
 * (the Kafka engine's `kafka_commit_every_batch = 1` commits each batch before the block holding
 * it is written: ClickHouse's own words for it are "losing some messages or reading them twice").
 */
export type OwedGuarantee = DeliveryGuarantee | 'none';
