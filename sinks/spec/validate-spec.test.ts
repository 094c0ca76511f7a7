import { describe, expect, it } from 'vitest';
import { hasErrorCode } from '../errors.ts';
import { batching, context, ofClass, problemsOf, sharded } from './spec-fixtures.ts';
import { SINK_CLASSES } from '../sink-classes.ts';
import { parseSinkSpec, validateDynamicParameters, validateSinkSpec } from './validate-spec.ts';

describe('validateSinkSpec: normalization', () => {
  it('fills every default of section 6 and maps the C++ class name to the short one', () => {
    const result = validateSinkSpec(batching(), context);
    expect(result).toEqual({
      ok: true,
      spec: {
        sink_class_name: 'ClickHouseBatchingSink',
        name: 'events_sink',
        input_stream_ids: ['rows'],
        parameters: {
          topology: { form: 'host', host: 'ch-1' },
          port: 8123,
          sharding_key_columns: [],
          host_selection_policy: 'ordered_round_robin',
          user: 'default',
          password_env_var: '',
          database: 'default',
          table: 'events',
          codec: 'lz4',
          enable_tls: false,
          tls_ca_files: [],
          tls_ca_directory: '',
          tls_skip_verification: false,
        },
        dynamic_parameters: {
          write_timeout: 60_000,
          retry_backoff: 1_000,
          max_insert_attempts: 10,
          async_insert: false,
          replay_horizon: 86_400_000,
          max_rows_per_batch: 1000,
          max_bytes_per_batch: 5_242_880,
        },
      },
    });
  });

  it.each([
    ['NYT::NFlow::TShardedClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    ['TShardedClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    ['ShardedClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
  ])('accepts the class name %s', (written, canonical) => {
    const result = validateSinkSpec({ ...sharded(), sink_class_name: written }, context);
    expect(result.ok && result.spec.sink_class_name).toBe(canonical);
  });

  it('sorts shard_hosts by shard name and keeps the host order', () => {
    const result = validateSinkSpec(
      sharded({ shard_hosts: { z: ['z2', 'z1'], a: ['a1'] }, sharding_key_columns: ['user_id'] }),
      context,
    );
    expect(result.ok && result.spec.parameters.topology).toEqual({
      form: 'shard_hosts',
      shards: new Map([
        ['a', ['a1']],
        ['z', ['z2', 'z1']],
      ]),
    });
    expect(result.ok && result.spec.parameters.sharding_key_columns).toEqual(['user_id']);
  });

  it('reads durations and class-specific dynamic parameters', () => {
    const spec = ofClass(
      'AtMostOnceClickHouseSink',
      { hosts: ['h1', 'h2'], host: undefined, at_most_once_strategy: { enabled: true } },
      {
        dynamic_parameters: {
          write_timeout: '30s',
          retry_backoff: 250,
          replay_horizon: '2h',
          at_most_once_strategy: { total_queue_bytes_limit: 1024 },
        },
      },
    );
    const result = validateSinkSpec(spec, context);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.spec.parameters.topology).toEqual({ form: 'hosts', hosts: ['h1', 'h2'] });
    expect(result.spec.parameters.at_most_once_strategy).toEqual({ enabled: true });
    expect(result.spec.dynamic_parameters).toMatchObject({
      write_timeout: 30_000,
      retry_backoff: 250,
      replay_horizon: 7_200_000,
      at_most_once_strategy: { total_queue_bytes_limit: 1024 },
    });
    expect(result.spec.dynamic_parameters.max_rows_per_batch).toBeUndefined();
  });

  it('defaults the at-most-once strategy to disabled with a 16 MiB queue', () => {
    const result = validateSinkSpec(ofClass('AtMostOnceClickHouseSink'), context);
    expect(result.ok && result.spec.parameters.at_most_once_strategy).toEqual({ enabled: false });
    expect(result.ok && result.spec.dynamic_parameters.at_most_once_strategy).toEqual({
      total_queue_bytes_limit: 16_777_216,
    });
  });

  it('accepts any password variable name: whether it is set is read when the client is created', () => {
    expect(problemsOf(batching({ password_env_var: 'EMPTY' }))).toEqual([]);
  });

  it('accepts TLS options with enable_tls', () => {
    expect(
      problemsOf(
        batching({
          enable_tls: true,
          port: 8443,
          tls_ca_files: ['/ca.pem'],
          tls_ca_directory: '/certs',
          tls_skip_verification: true,
        }),
      ),
    ).toEqual([]);
  });
});

describe('validateSinkSpec: all problems at once', () => {
  it('reports every refused rule of one spec', () => {
    const spec = {
      sink_class_name: 'NYT::NFlow::TClickHouseBatchingSink',
      name: 'x',
      parameters: { hosts: ['only'], sharding_key_columns: ['k'], port: 0, tls_skip_verification: true, tabel: 't' },
      dynamic_parameters: { max_rows_per_batch: 5000, write_timeout: 'soon' },
    };
    expect(
      problemsOf(spec)
        .map((p) => p.rule)
        .sort(),
    ).toEqual(
      [
        'duration',
        'hosts-single-element',
        'max-rows-per-batch-range',
        'parameter-unknown',
        'port-range',
        'sharding-key-without-shard-hosts',
        'table-required',
        'tls-requires-enable-tls',
      ].sort(),
    );
  });

  it('parseSinkSpec throws one SINK_SPEC_INVALID refusal listing them', () => {
    try {
      parseSinkSpec({ ...batching({ port: 0, codec: 'gzip' }) }, context);
      expect.unreachable();
    } catch (error) {
      expect(hasErrorCode(error, 'SINK_SPEC_INVALID')).toBe(true);
      const message = (error as Error).message;
      expect(message.split('\n')[0]).toBe("Refusing the sink spec 'events_sink': 2 problem(s)");
      expect(message).toContain('  - parameters.port: must be an integer from 1 to 65535, got 0 (rule: port-range)');
      expect(message).toContain('  - parameters.codec:');
    }
  });

  it('still checks the parameters when the class is unknown', () => {
    const rules = problemsOf(ofClass('Nope', { port: -1 })).map((p) => p.rule);
    expect(rules).toEqual(['class-unknown', 'port-range']);
  });
});

describe('validateDynamicParameters', () => {
  it('validates a reconfiguration on its own, for the running class', () => {
    expect(
      validateDynamicParameters({ write_timeout: '10s', max_rows_per_batch: 10 }, SINK_CLASSES.ClickHouseBatchingSink),
    ).toMatchObject({
      ok: true,
      dynamic: { write_timeout: 10_000, max_rows_per_batch: 10, max_bytes_per_batch: 5_242_880 },
    });
    const refused = validateDynamicParameters(
      { max_rows_per_batch: 10, host: 'h' },
      SINK_CLASSES.AtLeastOnceClickHouseSink,
    );
    expect(refused.ok || refused.problems.map((p) => p.rule)).toEqual(['parameter-class', 'parameter-section']);
  });
});
