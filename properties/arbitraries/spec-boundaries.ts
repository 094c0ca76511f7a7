import { SINK_CLASSES, type SinkClassName } from '../../sinks/index.ts';

type SinkClassDescriptor = (typeof SINK_CLASSES)[SinkClassName];
import type { RawSinkSpec } from './arb-sink-spec.ts';
import type { ClusterEndpoints } from './cluster-endpoints.ts';

/**
 * The small regions of a spec a draw would seldom land in: each host form (the sharded one keyed
 * and unkeyed), the edge value of every limit, each at-most-once strategy mode, and `async_insert`
 * both ways (a draw per spec leaves a run without one of them often enough). A scenario
 * that declares them runs every one in every run, and a pass needs an INSERT (or an at-most-once
 * ack) under a spec on each.
 */
export const SPEC_BOUNDARIES = [
  'host',
  'hosts',
  'shard_hosts keyed',
  'shard_hosts unkeyed',
  'max_rows_per_batch = 1',
  'max_bytes_per_batch = 1 (below any message)',
  'max_insert_attempts = 1',
  'at-most-once ordered',
  'at-most-once queue',
  'at-most-once queue of 1 byte (below any message)',
  'async_insert on',
  'async_insert off',
] as const;

export type SpecBoundary = (typeof SPEC_BOUNDARIES)[number];

interface BoundaryRule {
  /** What the boundary sets: two boundaries of one parameter never share a spec. */
  readonly parameter: 'host form' | 'batch cut' | 'max_insert_attempts' | 'strategy' | 'async_insert';
  readonly appliesTo: (descriptor: SinkClassDescriptor) => boolean;
  readonly apply: (spec: RawSinkSpec, endpoints: ClusterEndpoints) => RawSinkSpec;
  /** Whether a spec (as stored in the history) is on the boundary: the evidence reads this, never a label. */
  readonly meets: (spec: RawSinkSpec) => boolean;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

function withHostForm(spec: RawSinkSpec, form: Record<string, unknown>): RawSinkSpec {
  const {
    host: _host,
    hosts: _hosts,
    shard_hosts: _shardHosts,
    sharding_key_columns: _keys,
    ...rest
  } = spec.parameters;
  return { ...spec, parameters: { ...rest, ...form } };
}

const withDynamic = (spec: RawSinkSpec, dynamic: Record<string, unknown>): RawSinkSpec => ({
  ...spec,
  dynamic_parameters: { ...spec.dynamic_parameters, ...dynamic },
});

function withStrategy(spec: RawSinkSpec, enabled: boolean, queueLimit?: number): RawSinkSpec {
  const dynamicStrategy = record(spec.dynamic_parameters.at_most_once_strategy);
  return {
    ...spec,
    parameters: { ...spec.parameters, at_most_once_strategy: { enabled } },
    dynamic_parameters: {
      ...spec.dynamic_parameters,
      ...(queueLimit === undefined
        ? {}
        : { at_most_once_strategy: { ...dynamicStrategy, total_queue_bytes_limit: queueLimit } }),
    },
  };
}

const firstShardHosts = (endpoints: ClusterEndpoints): readonly string[] => {
  const [first] = endpoints.shards.values();
  if (first === undefined || first.length === 0) throw new Error('the cluster has no shard');
  return first;
};

const shardHosts = (endpoints: ClusterEndpoints) =>
  Object.fromEntries([...endpoints.shards].map(([n, h]) => [n, [...h]]));

const keyColumns = (spec: RawSinkSpec) => spec.parameters.sharding_key_columns;
const isKeyed = (spec: RawSinkSpec) => Array.isArray(keyColumns(spec)) && (keyColumns(spec) as unknown[]).length > 0;
const hasShardHosts = (spec: RawSinkSpec) => Object.keys(record(spec.parameters.shard_hosts)).length > 0;
const queueMode = (spec: RawSinkSpec) => record(spec.parameters.at_most_once_strategy).enabled === true;
const queueLimit = (spec: RawSinkSpec) => record(spec.dynamic_parameters.at_most_once_strategy).total_queue_bytes_limit;
const atMostOnce = (spec: RawSinkSpec) =>
  SINK_CLASSES[spec.sink_class_name as SinkClassName]?.atMostOnceStrategy === true;

const RULES: Readonly<Record<SpecBoundary, BoundaryRule>> = {
  host: {
    parameter: 'host form',
    appliesTo: (descriptor) => descriptor.hostForms.includes('host'),
    apply: (spec, endpoints) => withHostForm(spec, { host: firstShardHosts(endpoints)[0] }),
    meets: (spec) => typeof spec.parameters.host === 'string' && spec.parameters.host !== '',
  },
  hosts: {
    parameter: 'host form',
    appliesTo: (descriptor) => descriptor.hostForms.includes('hosts'),
    apply: (spec, endpoints) => withHostForm(spec, { hosts: [...firstShardHosts(endpoints)] }),
    meets: (spec) => Array.isArray(spec.parameters.hosts) && spec.parameters.hosts.length > 1,
  },
  'shard_hosts keyed': {
    parameter: 'host form',
    appliesTo: (descriptor) => descriptor.hostForms.includes('shard_hosts'),
    apply: (spec, endpoints) =>
      withHostForm(spec, { shard_hosts: shardHosts(endpoints), sharding_key_columns: ['key'] }),
    meets: (spec) => hasShardHosts(spec) && isKeyed(spec),
  },
  'shard_hosts unkeyed': {
    parameter: 'host form',
    appliesTo: (descriptor) => descriptor.hostForms.includes('shard_hosts'),
    apply: (spec, endpoints) => withHostForm(spec, { shard_hosts: shardHosts(endpoints) }),
    meets: (spec) => hasShardHosts(spec) && !isKeyed(spec),
  },
  'max_rows_per_batch = 1': {
    parameter: 'batch cut',
    appliesTo: (descriptor) => descriptor.batching,
    apply: (spec) => withDynamic(spec, { max_rows_per_batch: 1, max_bytes_per_batch: 5_242_880 }),
    meets: (spec) => spec.dynamic_parameters.max_rows_per_batch === 1,
  },
  'max_bytes_per_batch = 1 (below any message)': {
    parameter: 'batch cut',
    appliesTo: (descriptor) => descriptor.batching,
    // Rows high, so every cut this spec makes is the byte limit's.
    apply: (spec) => withDynamic(spec, { max_rows_per_batch: 2000, max_bytes_per_batch: 1 }),
    meets: (spec) => spec.dynamic_parameters.max_bytes_per_batch === 1,
  },
  'max_insert_attempts = 1': {
    parameter: 'max_insert_attempts',
    appliesTo: () => true,
    apply: (spec) => withDynamic(spec, { max_insert_attempts: 1 }),
    meets: (spec) => spec.dynamic_parameters.max_insert_attempts === 1,
  },
  'at-most-once ordered': {
    parameter: 'strategy',
    appliesTo: (descriptor) => descriptor.atMostOnceStrategy,
    apply: (spec) => withStrategy(spec, false),
    meets: (spec) => atMostOnce(spec) && !queueMode(spec),
  },
  'at-most-once queue': {
    parameter: 'strategy',
    appliesTo: (descriptor) => descriptor.atMostOnceStrategy,
    apply: (spec) => withStrategy(spec, true, 1 << 20),
    meets: (spec) => atMostOnce(spec) && queueMode(spec) && queueLimit(spec) !== 1,
  },
  'at-most-once queue of 1 byte (below any message)': {
    parameter: 'strategy',
    appliesTo: (descriptor) => descriptor.atMostOnceStrategy,
    apply: (spec) => withStrategy(spec, true, 1),
    meets: (spec) => atMostOnce(spec) && queueMode(spec) && queueLimit(spec) === 1,
  },
  'async_insert on': {
    parameter: 'async_insert',
    appliesTo: () => true,
    apply: (spec) => withDynamic(spec, { async_insert: true }),
    meets: (spec) => spec.dynamic_parameters.async_insert === true,
  },
  'async_insert off': {
    parameter: 'async_insert',
    appliesTo: () => true,
    apply: (spec) => withDynamic(spec, { async_insert: false }),
    meets: (spec) => spec.dynamic_parameters.async_insert !== true,
  },
};

/** The boundaries a class has, in catalogue order; `hosts` only where the first shard has two hosts to list. */
export function boundariesOf(sinkClass: SinkClassName, endpoints?: ClusterEndpoints): SpecBoundary[] {
  const descriptor = SINK_CLASSES[sinkClass];
  return SPEC_BOUNDARIES.filter(
    (boundary) =>
      RULES[boundary].appliesTo(descriptor) &&
      (boundary !== 'hosts' || endpoints === undefined || firstShardHosts(endpoints).length > 1),
  );
}

export const meetsBoundary = (spec: RawSinkSpec, boundary: SpecBoundary): boolean => RULES[boundary].meets(spec);

/** A spec on a set of boundaries. */
export interface BoundarySpec {
  readonly boundaries: readonly SpecBoundary[];
  readonly spec: RawSinkSpec;
}

/**
 * The boundaries packed into as few specs as their parameters allow (one per host form, at
 * least), each built on `spec` so the rest of it stays as drawn: a host form each, and every
 * other boundary in turn on the first of them that sets nothing of its parameter yet.
 */
export function boundarySpecs(
  spec: RawSinkSpec,
  boundaries: readonly SpecBoundary[],
  endpoints: ClusterEndpoints,
): BoundarySpec[] {
  const groups: SpecBoundary[][] = boundaries.filter((b) => RULES[b].parameter === 'host form').map((b) => [b]);
  let next = 0;
  for (const boundary of boundaries.filter((b) => RULES[b].parameter !== 'host form')) {
    const free = (group: SpecBoundary[]) =>
      group.every((other) => RULES[other].parameter !== RULES[boundary].parameter);
    const order = groups.map((_, i) => groups[(next + i) % groups.length] as SpecBoundary[]);
    const group = order.find(free);
    if (group === undefined) groups.push([boundary]);
    else group.push(boundary);
    next = (groups.indexOf(group ?? (groups.at(-1) as SpecBoundary[])) + 1) % groups.length;
  }
  return groups.map((group) => ({
    boundaries: group,
    spec: group.reduce((built, boundary) => RULES[boundary].apply(built, endpoints), spec),
  }));
}
