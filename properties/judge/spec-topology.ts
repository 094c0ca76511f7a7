import { HarnessError } from '../../harness/base/index.ts';
import type { RawSinkSpec } from '../arbitraries/index.ts';

/**
 * Where a raw spec sends its rows, as the executor's models read it. Unsharded: the `host` or
 * `hosts` form (kept, as a change between them is one the guard must let through) with its hosts
 * in order; sharded: the shards in canonical name order and the sharding key columns. Every form
 * shares the spec's `port`.
 */
export type SpecTopology = { readonly port: number | undefined } & (
  | { readonly form: 'host' | 'hosts'; readonly hosts: Hosts }
  | {
      readonly form: 'shard_hosts';
      readonly shards: ReadonlyMap<string, Hosts>;
      readonly keyColumns: readonly string[];
    }
);

/** A host list of a spec: never empty, so its first host (where failover starts) exists. */
export type Hosts = readonly [string, ...string[]];

// Specs are immutable once built; each is parsed the first time a model asks.
const parsed = new WeakMap<RawSinkSpec, SpecTopology>();

/**
 * The host form of a raw spec, read by the executor's own rules from the seed's text
 * (`sink-family.md` §3, §6), never by the sinks' code: the placement expectation and the guard
 * model must see a spec as the seed defines it, so that a sink reading it otherwise (a shard
 * order, a key column dropped) is caught rather than agreed with. The class is not checked here:
 * a form the class refuses is the worker's refusal to report.
 */
export function specTopology(spec: RawSinkSpec): SpecTopology {
  const known = parsed.get(spec);
  if (known !== undefined) return known;
  const topology = parseTopology(spec);
  parsed.set(spec, topology);
  return topology;
}

const SHARD_NAME = /^[A-Za-z0-9_-]+$/;

/** The seed's defaults of the host forms (`""`, `[]`, `{}`): a form spelled with one is not set. */
const isUnset = (value: unknown) =>
  value === undefined ||
  value === '' ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);

/** Canonical shard order: by code unit, which for the shard-name alphabet (ASCII) is byte order. */
const byName = ([a]: readonly [string, unknown], [b]: readonly [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

function parseTopology(spec: RawSinkSpec): SpecTopology {
  const refused = (detail: string) =>
    new HarnessError(
      'CHAOS_SPEC_HOSTS_INVALID',
      `Sink spec '${spec.name}' has no valid host form: ${detail}; the scenario built a spec the sinks would refuse, fix it there`,
    );
  const parameters = spec.parameters;
  const hostList = (value: unknown, where: string): Hosts => {
    if (!Array.isArray(value) || !value.every((host) => typeof host === 'string' && host !== ''))
      throw refused(`${where} must be a list of host names, got ${JSON.stringify(value)}`);
    const [first, ...rest] = value as string[];
    if (first === undefined) throw refused(`${where} lists no host`);
    return [first, ...rest];
  };
  const forms = (['host', 'hosts', 'shard_hosts'] as const).filter((form) => !isUnset(parameters[form]));
  const [form] = forms;
  if (form === undefined || forms.length > 1)
    throw refused(
      `exactly one of host, hosts, shard_hosts must be set, but ${forms.length === 0 ? 'none is set' : `${forms.join(' and ')} are all set`}`,
    );
  const port = parameters.port;
  if (port !== undefined && !Number.isInteger(port))
    throw refused(`port must be an integer, got ${JSON.stringify(port)}`);
  const keyColumns = parameters.sharding_key_columns ?? [];
  if (!Array.isArray(keyColumns) || !keyColumns.every((column) => typeof column === 'string' && column !== ''))
    throw refused(`sharding_key_columns must be a list of column names, got ${JSON.stringify(keyColumns)}`);
  if (form !== 'shard_hosts' && keyColumns.length > 0) throw refused('sharding_key_columns goes with shard_hosts only');
  const common = { port: port as number | undefined };
  switch (form) {
    case 'host':
      if (typeof parameters.host !== 'string')
        throw refused(`host must be a host name, got ${JSON.stringify(parameters.host)}`);
      return { ...common, form, hosts: [parameters.host] };
    case 'hosts': {
      const hosts = hostList(parameters.hosts, 'hosts');
      if (hosts.length === 1)
        throw refused(`a one-element hosts list is refused; use "host": ${JSON.stringify(hosts[0])}`);
      return { ...common, form, hosts };
    }
    case 'shard_hosts': {
      const value = parameters.shard_hosts;
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw refused(`shard_hosts must map shard names to host lists, got ${JSON.stringify(value)}`);
      const shards = Object.entries(value as Record<string, unknown>).map(([name, hosts]) => {
        if (!SHARD_NAME.test(name)) throw refused(`shard name ${JSON.stringify(name)} is not [A-Za-z0-9_-]+`);
        return [name, hostList(hosts, `shard ${name}`)] as const;
      });
      return { ...common, form, shards: new Map(shards.sort(byName)), keyColumns: keyColumns as string[] };
    }
  }
}
