/** The public API of `sinks/`: the four sink classes, their write session, and the pure foundation under them. */
export * from './domain/index.ts';
export * from './sink-classes.ts';
export * from './registry.ts';

export type * from './spec/sink-spec.ts';
export { SinkSpecProblem, SinkSpecRefusal, type SpecRule } from './spec/spec-problem.ts';
export { parseSinkSpec, sinkClassOf, validateDynamicParameters, validateSinkSpec, type SpecValidation, type SpecValidationContext } from './spec/validate-spec.ts';
export { parseDuration, formatDuration } from './spec/duration.ts';

export { xxhash64, toHex64 } from './hash/xxhash64.ts';
export { routingKeyFor, type RoutingKey, type Row, type RowValue } from './routing/routing-key.ts';
export { RendezvousRouter, rendezvousScore } from './routing/rendezvous-router.ts';
export { splitBatchByShard, type ShardSubBatch } from './routing/shard-split.ts';
export { BatchCutter, cutBatches, type Batch, type BatchableMessage, type BatchLimits } from './batching/batch-cutter.ts';

export { classifyEngine, type EngineKind } from './topology/engine-kind.ts';
export { routingFingerprint, type RoutingLayout } from './topology/routing-fingerprint.ts';
export { targetFingerprint, type TargetIdentity } from './topology/target-fingerprint.ts';
export * from './topology/topology-guard.ts';
export * from './topology/spec-topology.ts';
export * from './target/engine-acceptance.ts';
export * from './target/dedup-window.ts';

export * from './types/clickhouse-type.ts';
export * from './types/stream-type.ts';
export * from './types/schema-check.ts';
export { checkFixedStringValue } from './types/fixed-string.ts';

export { classifyInsertError, classifyClickHouseCode, clickHouseCodeOf, type InsertErrorClass } from './retry/error-classification.ts';
export * from './retry/retry-policy.ts';
export * from './retry/insert-give-up.ts';

export { insertSettingsFor } from './settings/insert-settings.ts';
export { EndpointRotation, startIndex, type Random } from './endpoints/endpoint-rotation.ts';

export type * from './api.ts';
export { createSink, SINK_IMPLEMENTATIONS, type SinkConstructor } from './classes/create-sink.ts';
export { ClickHouseBatchingSink, ShardedClickHouseBatchingSink } from './classes/batching-sink.ts';
export { AtLeastOnceClickHouseSink } from './classes/at-least-once-sink.ts';
export { AtMostOnceClickHouseSink } from './classes/at-most-once-sink.ts';
export { WriteSession, type WriteSessionOptions } from './session/write-session.ts';
export { addressBook } from './session/address-book.ts';
export { failedAttemptOutcome, type FailedAttemptOutcome } from './insert/attempt-outcome.ts';
export { clusterAddressBook, clusterShardHosts, NOMINAL_PORT } from './testing/cluster-endpoints.ts';
