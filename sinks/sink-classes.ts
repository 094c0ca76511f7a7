import { cppClassName, type SinkClassName } from './domain/sink-class-name.ts';

export type DeliveryGuarantee = 'exactly-once' | 'at-least-once' | 'at-most-once';
export type HostForm = 'host' | 'hosts' | 'shard_hosts';

/** The static facts about a sink class that spec validation and the write paths rely on. */
export interface SinkClassDescriptor {
  readonly name: SinkClassName;
  /** `NYT::NFlow::T<name>`, as the original registry spells it. */
  readonly cppName: string;
  readonly guarantee: DeliveryGuarantee;
  readonly hostForms: readonly HostForm[];
  /** Sends `insert_deduplication_token` (and `async_insert_deduplicate=1` with async inserts). */
  readonly usesDedupToken: boolean;
  /** Persists routing/target fingerprints and refuses to start when they changed under undelivered batches. */
  readonly topologyGuard: boolean;
  /** Cuts deterministic batches into an outbox; takes `max_rows_per_batch` / `max_bytes_per_batch`. */
  readonly batching: boolean;
  /** Takes `at_most_once_strategy` (static `enabled`, dynamic `total_queue_bytes_limit`). */
  readonly atMostOnceStrategy: boolean;
}

const ALL_HOST_FORMS: readonly HostForm[] = ['host', 'hosts', 'shard_hosts'];

function describe(name: SinkClassName, facts: Omit<SinkClassDescriptor, 'name' | 'cppName'>): SinkClassDescriptor {
  return { name, cppName: cppClassName(name), ...facts };
}

export const SINK_CLASSES: Readonly<Record<SinkClassName, SinkClassDescriptor>> = {
  ClickHouseBatchingSink: describe('ClickHouseBatchingSink', {
    guarantee: 'exactly-once',
    hostForms: ['host', 'hosts'],
    usesDedupToken: true,
    topologyGuard: true,
    batching: true,
    atMostOnceStrategy: false,
  }),
  ShardedClickHouseBatchingSink: describe('ShardedClickHouseBatchingSink', {
    guarantee: 'exactly-once',
    hostForms: ['shard_hosts'],
    usesDedupToken: true,
    topologyGuard: true,
    batching: true,
    atMostOnceStrategy: false,
  }),
  AtLeastOnceClickHouseSink: describe('AtLeastOnceClickHouseSink', {
    guarantee: 'at-least-once',
    hostForms: ALL_HOST_FORMS,
    usesDedupToken: false,
    topologyGuard: false,
    batching: false,
    atMostOnceStrategy: false,
  }),
  AtMostOnceClickHouseSink: describe('AtMostOnceClickHouseSink', {
    guarantee: 'at-most-once',
    hostForms: ALL_HOST_FORMS,
    usesDedupToken: false,
    topologyGuard: false,
    batching: false,
    atMostOnceStrategy: true,
  }),
};
