/** The public API of `sinks/`: the pure foundation the write session and the sink classes build on. */
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
