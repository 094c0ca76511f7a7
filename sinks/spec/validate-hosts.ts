import { isShardName, compareShardNames, type ShardName } from '../domain/shard-name.ts';
import type { HostForm, SinkClassDescriptor } from '../sink-classes.ts';
import { isJsonObject, show, type ObjectReader } from './object-reader.ts';
import type { HostTopology } from './sink-spec.ts';

const HOST_FORMS: readonly HostForm[] = ['host', 'hosts', 'shard_hosts'];

export interface HostValidation {
  /** Undefined when the host forms are refused. */
  readonly topology: HostTopology | undefined;
  readonly shardingKeyColumns: readonly string[];
}

/** The seed's declared defaults of the host forms: a form spelled with one of them is not set. */
function isDeclaredDefault(value: unknown): boolean {
  if (value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isJsonObject(value) && Object.keys(value).length === 0;
}

/**
 * The host forms the spec sets. As in the seed, a form spelled with its declared default
 * (`"host": ""`, `"hosts": []`, `"shard_hosts": {}`) is unset, so it may stand beside the real
 * one; alone, it is read anyway so its own rule says what is missing.
 */
function setHostForms(reader: ObjectReader): HostForm[] {
  const mentioned = HOST_FORMS.filter((form) => reader.has(form));
  const set = mentioned.filter((form) => !isDeclaredDefault(reader.raw(form)));
  return set.length === 0 && mentioned.length === 1 ? mentioned : set;
}

/**
 * The host-form rules: exactly one of `host`, `hosts`, `shard_hosts`; each well formed; the form
 * allowed by the class; `sharding_key_columns` only with `shard_hosts`.
 */
export function validateHostForms(reader: ObjectReader, sinkClass: SinkClassDescriptor | undefined): HostValidation {
  const { problems } = reader;
  const problemsBefore = problems.list.length;
  const present = setHostForms(reader);
  if (present.length !== 1) {
    const found = present.length === 0 ? 'none is set' : `${present.join(' and ')} are all set`;
    problems.add(
      'host-form-exactly-one',
      reader.path,
      `exactly one of host, hosts, shard_hosts must be set, but ${found}`,
    );
  }
  if (sinkClass) {
    for (const form of present.filter((f) => !sinkClass.hostForms.includes(f))) {
      const advice =
        sinkClass.name === 'ClickHouseBatchingSink'
          ? 'for several shards use NYT::NFlow::TShardedClickHouseBatchingSink with shard_hosts (drain the pipeline first when migrating)'
          : 'for one unsharded table use NYT::NFlow::TClickHouseBatchingSink with host or hosts';
      problems.add(
        'host-form-class',
        reader.pathOf(form),
        `${sinkClass.cppName} accepts only ${sinkClass.hostForms.join(' or ')}; ${advice}`,
      );
    }
  }

  const topologies = present.map((form) => readForm(reader, form));
  const shardingKeyColumns = readShardingKeyColumns(reader, present.includes('shard_hosts'));
  const valid = problems.list.length === problemsBefore && topologies.length === 1 ? topologies[0] : undefined;
  return { topology: valid, shardingKeyColumns };
}

function readForm(reader: ObjectReader, form: HostForm): HostTopology | undefined {
  if (form === 'host') {
    const host = reader.string('host', '');
    if (typeof reader.raw('host') === 'string') checkHost(reader, host, reader.pathOf('host'));
    return { form, host };
  }
  if (form === 'hosts') {
    const hosts = reader.stringList('hosts') ?? [];
    if (hosts.length === 0)
      reader.problems.add(
        'hosts-empty',
        reader.pathOf('hosts'),
        'must list at least two hosts (a single host goes in host)',
      );
    if (hosts.length === 1)
      reader.problems.add(
        'hosts-single-element',
        reader.pathOf('hosts'),
        `a one-element list is refused; use "host": ${show(hosts[0])} instead`,
      );
    checkHostList(reader, hosts, reader.pathOf('hosts'));
    return { form, hosts };
  }
  return readShardHosts(reader);
}

function readShardHosts(reader: ObjectReader): HostTopology | undefined {
  const { problems } = reader;
  const path = reader.pathOf('shard_hosts');
  const value = reader.raw('shard_hosts');
  if (!isJsonObject(value)) {
    problems.add('parameter-type', path, `must be a map from shard name to a list of hosts, got ${show(value)}`);
    return undefined;
  }
  const names = Object.keys(value);
  if (names.length === 0) problems.add('shard-hosts-empty', path, 'must name at least one shard');
  const shards = new Map<ShardName, string[]>();
  const shardOfHost = new Map<string, string>();
  for (const name of names) {
    const shardPath = `${path}.${name === '' ? '""' : name}`;
    if (!isShardName(name)) {
      problems.add(
        'shard-name-invalid',
        shardPath,
        `shard name ${show(name)} must be non-empty and use only letters, digits, '_' and '-' (it becomes part of every dedup token)`,
      );
    }
    const hosts = value[name];
    if (!Array.isArray(hosts) || !hosts.every((h): h is string => typeof h === 'string')) {
      problems.add('parameter-type', shardPath, `must be a list of host names, got ${show(hosts)}`);
      continue;
    }
    if (hosts.length === 0)
      problems.add('shard-host-list-empty', shardPath, 'the host list of a shard must not be empty');
    checkHostList(reader, hosts, shardPath);
    for (const host of new Set(hosts)) {
      const other = shardOfHost.get(host);
      if (other !== undefined) {
        problems.add(
          'shard-hosts-shared-host',
          shardPath,
          `host '${host}' is also in shard '${other}'; two shards on one endpoint would be one table under two dedup logs`,
        );
      }
      shardOfHost.set(host, name);
    }
    if (isShardName(name)) shards.set(name, hosts);
  }
  const sorted = new Map([...shards].sort(([a], [b]) => compareShardNames(a, b)));
  return { form: 'shard_hosts', shards: sorted };
}

function checkHostList(reader: ObjectReader, hosts: readonly string[], path: string): void {
  hosts.forEach((host, i) => checkHost(reader, host, `${path}[${i}]`));
  const duplicates = hosts.filter((host, i) => hosts.indexOf(host) !== i);
  for (const host of new Set(duplicates))
    reader.problems.add('hosts-duplicate', path, `host '${host}' is listed more than once`);
}

function checkHost(reader: ObjectReader, host: string, path: string): void {
  const problem =
    host.trim() === ''
      ? 'must not be empty'
      : /\s/.test(host)
        ? 'must not contain whitespace'
        : /^[a-z][a-z0-9+.-]*:\/\//i.test(host)
          ? 'must be a bare host name without a scheme (TLS is chosen by enable_tls)'
          : /^[^:[\]]+:\d+$/.test(host)
            ? 'must not carry a port: all hosts share the port parameter'
            : host.includes('/')
              ? 'must be a host name or address, not a URL'
              : undefined;
  if (problem) reader.problems.add('host-syntax', path, `${show(host)} ${problem}`);
}

function readShardingKeyColumns(reader: ObjectReader, sharded: boolean): string[] {
  const columns = reader.stringList('sharding_key_columns') ?? [];
  const path = reader.pathOf('sharding_key_columns');
  if (columns.length > 0 && !sharded) {
    reader.problems.add(
      'sharding-key-without-shard-hosts',
      path,
      'is only allowed with shard_hosts: the unsharded forms have nothing to route',
    );
  }
  if (columns.some((column) => column === ''))
    reader.problems.add('sharding-key-columns-invalid', path, 'column names must not be empty');
  const duplicates = new Set(columns.filter((column, i) => columns.indexOf(column) !== i));
  for (const column of duplicates)
    reader.problems.add('sharding-key-columns-invalid', path, `column '${column}' is listed more than once`);
  return columns;
}
