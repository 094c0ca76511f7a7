import { HarnessError } from '../../harness/errors.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/arb-sink-spec.ts';
import type { ShardName } from '../../sinks/domain/shard-name.ts';
import { ObjectReader } from '../../sinks/spec/object-reader.ts';
import { SpecProblems } from '../../sinks/spec/spec-problem.ts';
import { validateHostForms } from '../../sinks/spec/validate-hosts.ts';

/**
 * Where a raw spec sends its rows, as the executor's models read it. Unsharded: the `host` or
 * `hosts` form (kept, as a change between them is one the guard must let through) with its hosts
 * in order; sharded: the shards in canonical name order and the sharding key columns.
 */
export type SpecTopology =
  | { readonly form: 'host' | 'hosts'; readonly hosts: Hosts }
  | {
      readonly form: 'shard_hosts';
      readonly shards: ReadonlyMap<ShardName, Hosts>;
      readonly keyColumns: readonly string[];
    };

/** A host list the sinks accepted: never empty, so its first host (where failover starts) exists. */
export type Hosts = readonly [string, ...string[]];

// Specs are immutable once built; each is parsed the first time a model asks.
const parsed = new WeakMap<RawSinkSpec, SpecTopology>();

/**
 * The host form of a raw spec, read by the sinks' own host-form rules (`validateHostForms`), so
 * the executor never models a topology the sinks would read otherwise. The class is not checked
 * here: a form the class refuses is the worker's refusal to report.
 */
export function specTopology(spec: RawSinkSpec): SpecTopology {
  const known = parsed.get(spec);
  if (known !== undefined) return known;
  const topology = parseTopology(spec);
  parsed.set(spec, topology);
  return topology;
}

function parseTopology(spec: RawSinkSpec): SpecTopology {
  const problems = new SpecProblems();
  const { topology, shardingKeyColumns } = validateHostForms(
    new ObjectReader(spec.parameters, 'parameters', problems),
    undefined,
  );
  const refused = (detail: string) =>
    new HarnessError(
      'CHAOS_SPEC_HOSTS_INVALID',
      `Sink spec '${spec.name}' has no valid host form: ${detail}; the scenario built a spec the sinks would refuse, fix it there`,
    );
  if (topology === undefined || problems.list.length > 0)
    throw refused(problems.list.map((problem) => problem.message).join('; '));
  const nonEmpty = (hosts: readonly string[], where: string): Hosts => {
    const [first, ...rest] = hosts;
    if (first === undefined) throw refused(`${where} lists no host`);
    return [first, ...rest];
  };
  switch (topology.form) {
    case 'host':
      return { form: 'host', hosts: [topology.host] };
    case 'hosts':
      return { form: 'hosts', hosts: nonEmpty(topology.hosts, 'hosts') };
    case 'shard_hosts': {
      const shards = [...topology.shards].map(([name, hosts]) => [name, nonEmpty(hosts, `shard ${name}`)] as const);
      return { form: 'shard_hosts', shards: new Map(shards), keyColumns: shardingKeyColumns };
    }
  }
}
