import fc from 'fast-check';
import type { RawSinkSpec } from '../../properties/arbitraries/arb-sink-spec.ts';
import { Drain, HoldAndWrite, RestartWithSpec, WriteEpochs, type ChaosCommand } from '../../properties/model/commands.ts';
import type { ScenarioContext, ScenarioDefinition } from './scenario.ts';

interface TopologyChange {
  readonly label: string;
  readonly spec: RawSinkSpec;
  /** False for changes the guard must let through (same Keeper table, other host list). */
  readonly changesTopology: boolean;
}

const withParameters = (spec: RawSinkSpec, parameters: Record<string, unknown>, sinkClass = spec.sink_class_name): RawSinkSpec => ({
  ...spec,
  sink_class_name: sinkClass,
  parameters,
});

function withoutHostForms(parameters: Record<string, unknown>): Record<string, unknown> {
  const { host: _host, hosts: _hosts, shard_hosts: _shardHosts, sharding_key_columns: _keys, ...rest } = parameters;
  return rest;
}

/** The changes a spec can undergo, each with whether the guard must refuse it while batches are undelivered. */
export function topologyChanges(context: ScenarioContext): TopologyChange[] {
  const spec = context.spec;
  const base = withoutHostForms(spec.parameters);
  const shards = context.description.shards.map((shard) => ({
    name: shard.name,
    hosts: shard.replicas.map((replica) => new URL(replica.http).hostname),
  }));
  const [first, second] = shards;
  if (first === undefined || second === undefined) throw new Error('the topology guard scenario needs two shards');
  if (spec.parameters.shard_hosts !== undefined) {
    const keys = (spec.parameters.sharding_key_columns as string[] | undefined) ?? [];
    const shardHosts = spec.parameters.shard_hosts as Record<string, string[]>;
    const keyed = keys.length > 0 ? { sharding_key_columns: keys } : {};
    return [
      { label: `shard ${second.name} renamed to s9`, changesTopology: true, spec: withParameters(spec, { ...base, ...keyed, shard_hosts: { [first.name]: shardHosts[first.name], s9: shardHosts[second.name] } }) },
      { label: `shard ${second.name} removed`, changesTopology: true, spec: withParameters(spec, { ...base, ...keyed, shard_hosts: { [first.name]: shardHosts[first.name] } }) },
      {
        label: keys.length > 0 ? 'sharding_key_columns emptied' : 'sharding_key_columns = [key]',
        changesTopology: true,
        spec: withParameters(spec, { ...base, shard_hosts: shardHosts, ...(keys.length > 0 ? {} : { sharding_key_columns: ['key'] }) }),
      },
      {
        label: `shard ${second.name} down to one host (same Keeper table)`,
        changesTopology: false,
        spec: withParameters(spec, { ...base, ...keyed, shard_hosts: { ...shardHosts, [second.name]: second.hosts.slice(0, 1) } }),
      },
    ];
  }
  const sameTableOtherHosts = spec.parameters.host !== undefined && first.hosts.length > 1 ? { hosts: first.hosts } : { host: first.hosts[0] };
  return [
    { label: `target moved to shard ${second.name}'s table`, changesTopology: true, spec: withParameters(spec, { ...base, host: second.hosts[0] }) },
    { label: 'other hosts of the same Keeper table', changesTopology: false, spec: withParameters(spec, { ...base, ...sameTableOtherHosts }) },
    {
      label: 'migrated to ShardedClickHouseBatchingSink (same sink name)',
      changesTopology: true,
      spec: withParameters(spec, { ...base, shard_hosts: Object.fromEntries(shards.map((shard) => [shard.name, shard.hosts])) }, 'ShardedClickHouseBatchingSink'),
    },
  ];
}

/**
 * A change the guard must let through while batches are undelivered (same Keeper table, other
 * hosts), then a real topology change with partition 1 undelivered and partition 0 drained:
 * partition 1 must refuse with the exact message and insert nothing while partition 0 applies
 * it at once; restoring the spec lets partition 1 drain, after which the change applies
 * everywhere. Whether a start must refuse is decided by the executor's own model of the guard.
 */
export const topologyGuardScenario: ScenarioDefinition = {
  name: 'topology-guard',
  description: 'topology changes (shards renamed or removed, sharding key, target table, migration to the sharded class) and host-list changes while batches are undelivered',
  classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
  partitions: 2,
  runs: { ci: 2, full: 6 },
  commands: (context) => {
    const changes = topologyChanges(context);
    const benign = changes.filter((change) => !change.changesTopology);
    return fc.constantFrom(...changes.filter((change) => change.changesTopology)).map((change): ChaosCommand[] => [
      new HoldAndWrite(1),
      ...benign.map((other) => new RestartWithSpec(other.spec, other.label)),
      new Drain([0, 1]),
      new RestartWithSpec(context.spec, 'the original spec'),
      new HoldAndWrite(2),
      new Drain([0]),
      new RestartWithSpec(change.spec, change.label),
      new WriteEpochs(1),
      new Drain([0]),
      new RestartWithSpec(context.spec, 'the original spec'),
      new Drain([0, 1]),
      new RestartWithSpec(change.spec, `${change.label}, after the drain`),
      new WriteEpochs(1),
    ]);
  },
  coverage: () => ({ refusal: true }),
};
