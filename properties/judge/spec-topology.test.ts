import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../harness/base/index.ts';
import type { RawSinkSpec } from '../arbitraries/index.ts';
import { specTopology } from './spec-topology.ts';

const spec = (parameters: Record<string, unknown>): RawSinkSpec => ({
  sink_class_name: 'ShardedClickHouseBatchingSink',
  name: 'events',
  parameters: { table: 'events', ...parameters },
  dynamic_parameters: {},
});

describe('specTopology', () => {
  it('reads host and hosts as unsharded, keeping the form and the host order', () => {
    expect(specTopology(spec({ host: 'ch-1' }))).toEqual({ form: 'host', hosts: ['ch-1'] });
    expect(specTopology(spec({ hosts: ['ch-2', 'ch-1'] }))).toEqual({ form: 'hosts', hosts: ['ch-2', 'ch-1'] });
  });

  it('reads shard_hosts in canonical shard order, with the key columns (none when absent)', () => {
    const keyed = specTopology(
      spec({ shard_hosts: { s2: ['ch-3'], s1: ['ch-1', 'ch-2'] }, sharding_key_columns: ['key'] }),
    );
    expect(keyed).toEqual({
      form: 'shard_hosts',
      shards: new Map([
        ['s1', ['ch-1', 'ch-2']],
        ['s2', ['ch-3']],
      ]),
      keyColumns: ['key'],
    });
    expect(specTopology(spec({ shard_hosts: { s1: ['ch-1'] } }))).toMatchObject({ keyColumns: [] });
  });

  it('reads the shared port, and a default-spelled form as unset', () => {
    expect(specTopology(spec({ host: 'ch-1', hosts: [], shard_hosts: {}, port: 8123 }))).toEqual({
      form: 'host',
      hosts: ['ch-1'],
      port: 8123,
    });
  });

  it('parses a spec object once', () => {
    const one = spec({ host: 'ch-1' });
    expect(specTopology(one)).toBe(specTopology(one));
  });

  it.each([
    ['no host form', {}, /exactly one of host, hosts, shard_hosts/],
    ['two host forms', { host: 'ch-1', hosts: ['ch-1', 'ch-2'] }, /host and hosts are all set/],
    ['a one-element hosts list', { hosts: ['ch-1'] }, /use "host": "ch-1"/],
    ['a shard without hosts', { shard_hosts: { s1: [] } }, /shard s1 lists no host/],
    ['a shard name outside the seed’s alphabet', { shard_hosts: { 's 1': ['ch-1'] } }, /shard name "s 1"/],
    [
      'sharding_key_columns beside an unsharded form',
      { host: 'ch-1', sharding_key_columns: ['key'] },
      /with shard_hosts only/,
    ],
    ['a port that is not a number', { host: 'ch-1', port: '8123' }, /port must be an integer/],
  ])('refuses %s by the seed’s rule, naming the spec', (_label, parameters, rule) => {
    let thrown: unknown;
    try {
      specTopology(spec(parameters));
    } catch (error) {
      thrown = error;
    }
    expect(isHarnessError(thrown, 'CHAOS_SPEC_HOSTS_INVALID')).toBe(true);
    expect((thrown as Error).message).toMatch(/Sink spec 'events' has no valid host form/);
    expect((thrown as Error).message).toMatch(rule);
  });
});
