import { arbEveryOnce, type RawSinkSpec } from '../../properties/arbitraries/index.ts';
import { type ScheduleStep, step } from '../../properties/schedule/index.ts';
import { specTopology } from '../../properties/judge/index.ts';
import type { ScenarioContext, ScenarioDefinition } from './scenario.ts';

/** A change of spec with the spec it starts from. */
export interface TopologyChange {
  readonly label: string;
  readonly before: RawSinkSpec;
  readonly after: RawSinkSpec;
}

export interface TopologyChanges {
  /** Changes the guard must refuse while batches are undelivered. */
  readonly refused: readonly TopologyChange[];
  /** Changes it must let through (same Keeper tables, other hosts): they replay the backlog as persisted. */
  readonly allowed: readonly TopologyChange[];
}

const withParameters = (
  spec: RawSinkSpec,
  parameters: Record<string, unknown>,
  sinkClass = spec.sink_class_name,
): RawSinkSpec => ({
  ...spec,
  sink_class_name: sinkClass,
  parameters,
});

function withoutHostForms(parameters: Record<string, unknown>): Record<string, unknown> {
  const { host: _host, hosts: _hosts, shard_hosts: _shardHosts, sharding_key_columns: _keys, ...rest } = parameters;
  return rest;
}

const otherPolicy = (spec: RawSinkSpec) =>
  spec.parameters.host_selection_policy === 'random_start' ? 'ordered_round_robin' : 'random_start';

/**
 * Every kind of change the seed's guard knows, each from a spec where it makes sense: sharded —
 * a shard added, removed, renamed, the sharding key changed; unsharded — the target moved to
 * another Keeper table, and the migration to the sharded class under the same sink name; and
 * the changes it must let through (other hosts of the same Keeper tables, shard order, policy).
 */
export function topologyChanges(context: ScenarioContext): TopologyChanges {
  const spec = context.spec;
  const base = withoutHostForms(spec.parameters);
  const shards = context.description.shards.map((shard) => ({
    name: shard.name,
    hosts: shard.replicas.map((replica) => new URL(replica.http).hostname),
  }));
  const [first, second] = shards;
  if (first === undefined || second === undefined) throw new Error('the topology guard scenario needs two shards');
  const topology = specTopology(spec);
  if (topology.form === 'shard_hosts') {
    const keys = topology.keyColumns;
    const shardHosts: Record<string, readonly string[]> = Object.fromEntries(topology.shards);
    const keyed = keys.length > 0 ? { sharding_key_columns: keys } : {};
    const sharded = (
      hosts: Record<string, readonly string[] | undefined>,
      keyColumns: Record<string, unknown> = keyed,
    ) => withParameters(spec, { ...base, ...keyColumns, shard_hosts: hosts });
    const oneShard = sharded({ [first.name]: shardHosts[first.name] });
    // A name no shard of the cluster has, of another length than the one it replaces.
    const renamed = `${second.name}_renamed`;
    return {
      refused: [
        { label: `shard ${second.name} added`, before: oneShard, after: spec },
        { label: `shard ${second.name} removed`, before: spec, after: oneShard },
        {
          label: `shard ${second.name} renamed to ${renamed}`,
          before: spec,
          after: sharded({ [first.name]: shardHosts[first.name], [renamed]: shardHosts[second.name] }),
        },
        {
          label: keys.length > 0 ? 'sharding_key_columns emptied' : 'sharding_key_columns = [key]',
          before: spec,
          after: sharded(shardHosts, keys.length > 0 ? {} : { sharding_key_columns: ['key'] }),
        },
      ],
      allowed: [
        {
          label: `shard ${second.name} down to one host (same Keeper table)`,
          before: spec,
          after: sharded({ ...shardHosts, [second.name]: second.hosts.slice(0, 1) }),
        },
        {
          // The routing fingerprint sorts shard names; the policy only moves where failover starts.
          label: 'shards listed in the other order, the other host_selection_policy',
          before: spec,
          after: withParameters(spec, {
            ...base,
            ...keyed,
            host_selection_policy: otherPolicy(spec),
            shard_hosts: Object.fromEntries(Object.entries(shardHosts).reverse()),
          }),
        },
      ],
    };
  }
  const sameTableOtherHosts =
    topology.form === 'host' && first.hosts.length > 1 ? { hosts: first.hosts } : { host: first.hosts[0] };
  return {
    refused: [
      {
        label: `target moved to shard ${second.name}'s table`,
        before: spec,
        after: withParameters(spec, { ...base, host: second.hosts[0] }),
      },
      {
        label: 'migrated to ShardedClickHouseBatchingSink (same sink name)',
        before: spec,
        after: withParameters(
          spec,
          { ...base, shard_hosts: Object.fromEntries(shards.map((shard) => [shard.name, shard.hosts])) },
          'ShardedClickHouseBatchingSink',
        ),
      },
    ],
    allowed: [
      {
        label: 'other hosts of the same Keeper table, the other host_selection_policy',
        before: spec,
        after: withParameters(spec, { ...base, ...sameTableOtherHosts, host_selection_policy: otherPolicy(spec) }),
      },
    ],
  };
}

/**
 * One change over a backlog: partition 1 undelivered, partition 0 drained. Partition 1 must
 * refuse with the exact message and insert nothing while partition 0 applies the change at once;
 * restoring the spec lets partition 1 drain, after which the change applies everywhere.
 */
function refusedCycle(change: TopologyChange): ScheduleStep[] {
  return [
    step.holdAndWrite(2, change.before, `before: ${change.label}`),
    step.drain([0]),
    step.restartWithSpec(change.after, change.label, true),
    step.write(1),
    step.drain([0]),
    step.restartWithSpec(change.before, `restored before: ${change.label}`),
    step.drain([0, 1]),
    step.restartWithSpec(change.after, `${change.label}, after the drain`),
    step.write(1),
    step.drain([0, 1]),
  ];
}

/** A change the guard must let through: the backlog is replayed under it. */
function allowedCycle(change: TopologyChange): ScheduleStep[] {
  return [
    step.holdAndWrite(1, change.before, `before: ${change.label}`),
    step.restartWithSpec(change.after, change.label),
    step.drain([0, 1]),
  ];
}

/**
 * Every change of the class, each in its own cycle, in a random order (the space is small, so
 * no run leaves one out to chance). Whether a start must refuse is decided by the executor's own
 * model of the guard; the cycles only declare which changes must show a refusal.
 */
export const topologyGuardScenario: ScenarioDefinition = {
  name: 'topology-guard',
  description:
    'every topology change of the class (shard added, removed, renamed, sharding key changed; target moved; migration to the sharded class) over a backlog, and host-list changes the guard must let through',
  classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
  partitions: 2,
  // A shard added, removed or renamed: the changes are drawn between two shards of the cluster.
  shards: 2,
  commands: (context) => {
    const { refused, allowed } = topologyChanges(context);
    const cycles = [...allowed.map(allowedCycle), ...refused.map(refusedCycle)];
    return arbEveryOnce(cycles).map((order) => order.flat());
  },
  coverage: () => ({ refusal: true }),
};
