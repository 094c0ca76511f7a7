import { describe, expect, it } from 'vitest';
import { SinkRegistry } from '../registry.ts';
import {
  batching,
  context,
  expectRefused,
  ofClass,
  problemsOf,
  sharded,
  withoutKey,
  type Json,
} from './spec-fixtures.ts';

describe('validateSinkSpec: refusals, one rule at a time', () => {
  it('spec-shape', () => {
    expectRefused([], 'spec-shape', 'spec');
    expectRefused({ ...batching(), parameters: undefined }, 'spec-shape', 'parameters', /is required/);
    expectRefused({ ...batching(), dynamic_parameters: [] }, 'spec-shape', 'dynamic_parameters');
  });
  it('spec-unknown-key', () =>
    expectRefused(
      { ...batching(), dynamic_parameter: {} },
      'spec-unknown-key',
      'dynamic_parameter',
      /did you mean 'dynamic_parameters'/,
    ));
  it('name-required', () => {
    expectRefused({ ...batching(), name: undefined }, 'name-required', 'name');
    expectRefused({ ...batching(), name: ' ' }, 'name-required', 'name');
  });
  it('input-stream-ids', () =>
    expectRefused({ ...batching(), input_stream_ids: 'rows' }, 'input-stream-ids', 'input_stream_ids'));

  it('class-sync explains why and names the classes to use', () => {
    for (const written of ['NYT::NFlow::TSyncClickHouseSink', 'TSyncClickHouseSink', 'SyncClickHouseSink']) {
      const problem = expectRefused(
        ofClass(written),
        'class-sync',
        'sink_class_name',
        /no synchronous exactly-once ClickHouse sink/,
      );
      expect(problem?.code).toBe('SINK_CLASS_SYNC_UNSUPPORTED');
      expect(problem?.message).toMatch(/transactional outbox.*TClickHouseBatchingSink.*TShardedClickHouseBatchingSink/);
    }
  });
  it('class-unknown', () => {
    const problem = expectRefused(
      ofClass('NYT::NFlow::TClickHouseBatchSink'),
      'class-unknown',
      'sink_class_name',
      /did you mean 'NYT::NFlow::TClickHouseBatchingSink'/,
    );
    expect(problem?.code).toBe('SINK_CLASS_UNKNOWN');
    expectRefused(ofClass(''), 'class-unknown', 'sink_class_name', /is required/);
  });
  it('class-not-registered: a registry without the sharded class refuses the sharded spec', () => {
    const older = { ...context, registry: SinkRegistry.descriptorsOnly().without('ShardedClickHouseBatchingSink') };
    const problem = expectRefused(
      sharded(),
      'class-not-registered',
      'sink_class_name',
      /before any sink state is read/,
      older,
    );
    expect(problem?.code).toBe('SINK_CLASS_NOT_REGISTERED');
    expect(problemsOf(batching(), older)).toEqual([]);
  });

  it('parameter-unknown suggests the closest name', () => {
    expectRefused(batching({ tabel: 'x' }), 'parameter-unknown', 'parameters.tabel', /did you mean 'table'/);
    expectRefused(
      batching({ password: 'x' }),
      'parameter-unknown',
      'parameters.password',
      /did you mean 'password_env_var'/,
    );
    expectRefused(
      batching({}, { dynamic_parameters: { max_row_per_batch: 5 } }),
      'parameter-unknown',
      'dynamic_parameters.max_row_per_batch',
      /'max_rows_per_batch'/,
    );
    expectRefused(
      ofClass('AtMostOnceClickHouseSink', { at_most_once_strategy: { enable: true } }),
      'parameter-unknown',
      'parameters.at_most_once_strategy.enable',
      /'enabled'/,
    );
  });
  it('parameter-section', () => {
    expectRefused(
      batching({ write_timeout: '1m' }),
      'parameter-section',
      'parameters.write_timeout',
      /dynamic parameter; move it to dynamic_parameters/,
    );
    expectRefused(
      batching({}, { dynamic_parameters: { table: 'x' } }),
      'parameter-section',
      'dynamic_parameters.table',
      /static parameter/,
    );
    expectRefused(
      ofClass('AtMostOnceClickHouseSink', { at_most_once_strategy: { total_queue_bytes_limit: 5 } }),
      'parameter-section',
      'parameters.at_most_once_strategy.total_queue_bytes_limit',
    );
    expectRefused(
      ofClass('AtMostOnceClickHouseSink', {}, { dynamic_parameters: { at_most_once_strategy: { enabled: true } } }),
      'parameter-section',
      'dynamic_parameters.at_most_once_strategy.enabled',
    );
  });
  it('parameter-class: batch limits only for batching classes, the strategy only for at-most-once', () => {
    expectRefused(
      ofClass('AtLeastOnceClickHouseSink', {}, { dynamic_parameters: { max_rows_per_batch: 5 } }),
      'parameter-class',
      'dynamic_parameters.max_rows_per_batch',
      /only to the batching classes/,
    );
    expectRefused(
      batching({ at_most_once_strategy: { enabled: true } }),
      'parameter-class',
      'parameters.at_most_once_strategy',
      /only to AtMostOnceClickHouseSink/,
    );
  });
  it('parameter-type', () => {
    expectRefused(batching({ enable_tls: 'yes' }), 'parameter-type', 'parameters.enable_tls', /true or false/);
    expectRefused(
      batching({ host: undefined, hosts: 'h1,h2' }),
      'parameter-type',
      'parameters.hosts',
      /list of strings/,
    );
    expectRefused(sharded({ shard_hosts: ['a'] }), 'parameter-type', 'parameters.shard_hosts', /map from shard name/);
    expectRefused(sharded({ shard_hosts: { a: 'h' } }), 'parameter-type', 'parameters.shard_hosts.a');
  });

  it('host-form-exactly-one', () => {
    expectRefused(batching({ host: undefined }), 'host-form-exactly-one', 'parameters', /none is set/);
    expectRefused(
      ofClass('AtLeastOnceClickHouseSink', { hosts: ['h1', 'h2'] }),
      'host-form-exactly-one',
      'parameters',
      /host and hosts are all set/,
    );
    expectRefused(batching({ host: '', hosts: [] }), 'host-form-exactly-one', 'parameters', /none is set/);
  });
  it('host-form-class: batching takes host/hosts, sharded takes shard_hosts', () => {
    expectRefused(
      batching({ host: undefined, shard_hosts: { a: ['h'] } }),
      'host-form-class',
      'parameters.shard_hosts',
      /TShardedClickHouseBatchingSink/,
    );
    expectRefused(
      sharded({ shard_hosts: undefined, host: 'h' }),
      'host-form-class',
      'parameters.host',
      /accepts only shard_hosts/,
    );
    expectRefused(sharded({ shard_hosts: undefined, hosts: ['h1', 'h2'] }), 'host-form-class', 'parameters.hosts');
    for (const cls of ['AtLeastOnceClickHouseSink', 'AtMostOnceClickHouseSink']) {
      expect(problemsOf(ofClass(cls, { host: undefined, shard_hosts: { a: ['h'] } }))).toEqual([]);
    }
  });
  it('host-syntax', () => {
    expectRefused(batching({ host: '' }), 'host-syntax', 'parameters.host', /must not be empty/);
    expectRefused(batching({ host: 'http://ch-1' }), 'host-syntax', 'parameters.host', /without a scheme/);
    expectRefused(batching({ host: 'ch-1:8123' }), 'host-syntax', 'parameters.host', /share the port parameter/);
    expectRefused(
      batching({ host: undefined, hosts: ['ch 1', 'ch-2'] }),
      'host-syntax',
      'parameters.hosts[0]',
      /whitespace/,
    );
    expect(problemsOf(batching({ host: '::1' }))).toEqual([]);
  });
  it('hosts-single-element', () =>
    expectRefused(
      batching({ host: undefined, hosts: ['ch-1'] }),
      'hosts-single-element',
      'parameters.hosts',
      /use "host": "ch-1"/,
    ));
  it('a host form spelled with its declared default is unset, as in the seed, beside the real one', () => {
    expect(problemsOf(batching({ hosts: [], shard_hosts: {} }))).toEqual([]);
    expect(problemsOf(sharded({ host: '', hosts: [] }))).toEqual([]);
    expect(problemsOf(ofClass('AtLeastOnceClickHouseSink', { host: '', hosts: ['h1', 'h2'] }))).toEqual([]);
  });
  it('hosts-empty', () => expectRefused(batching({ host: undefined, hosts: [] }), 'hosts-empty', 'parameters.hosts'));
  it('hosts-duplicate', () => {
    expectRefused(
      batching({ host: undefined, hosts: ['h1', 'h1'] }),
      'hosts-duplicate',
      'parameters.hosts',
      /'h1' is listed more than once/,
    );
    expectRefused(sharded({ shard_hosts: { a: ['h1', 'h1'] } }), 'hosts-duplicate', 'parameters.shard_hosts.a');
  });
  it('shard-hosts-empty', () =>
    expectRefused(sharded({ shard_hosts: {} }), 'shard-hosts-empty', 'parameters.shard_hosts'));
  it('shard-name-invalid', () => {
    expectRefused(
      sharded({ shard_hosts: { 'eu.1': ['h'] } }),
      'shard-name-invalid',
      'parameters.shard_hosts.eu.1',
      /letters, digits/,
    );
    expectRefused(sharded({ shard_hosts: { '': ['h'] } }), 'shard-name-invalid', 'parameters.shard_hosts.""');
  });
  it('shard-host-list-empty', () =>
    expectRefused(sharded({ shard_hosts: { a: ['h'], b: [] } }), 'shard-host-list-empty', 'parameters.shard_hosts.b'));
  it('shard-hosts-shared-host', () =>
    expectRefused(
      sharded({ shard_hosts: { a: ['h'], b: ['h'] } }),
      'shard-hosts-shared-host',
      'parameters.shard_hosts.b',
      /also in shard 'a'/,
    ));
  it('sharding-key-without-shard-hosts', () => {
    expectRefused(
      batching({ sharding_key_columns: ['user_id'] }),
      'sharding-key-without-shard-hosts',
      'parameters.sharding_key_columns',
    );
    expectRefused(
      ofClass('AtLeastOnceClickHouseSink', { sharding_key_columns: ['user_id'] }),
      'sharding-key-without-shard-hosts',
      'parameters.sharding_key_columns',
    );
    expect(problemsOf(batching({ sharding_key_columns: [] }))).toEqual([]);
  });
  it('sharding-key-columns-invalid', () => {
    expectRefused(
      sharded({ sharding_key_columns: ['a', 'a'] }),
      'sharding-key-columns-invalid',
      'parameters.sharding_key_columns',
      /'a' is listed more than once/,
    );
    expectRefused(
      sharded({ sharding_key_columns: [''] }),
      'sharding-key-columns-invalid',
      'parameters.sharding_key_columns',
      /must not be empty/,
    );
  });

  it('port-range', () => {
    for (const port of [0, 65_536, 80.5, '8123']) expectRefused(batching({ port }), 'port-range', 'parameters.port');
  });
  it('host-selection-policy', () =>
    expectRefused(
      batching({ host_selection_policy: 'random' }),
      'host-selection-policy',
      'parameters.host_selection_policy',
      /'ordered_round_robin', 'random_start'/,
    ));
  it('user-empty', () => expectRefused(batching({ user: '' }), 'user-empty', 'parameters.user'));
  it('password-env-name', () =>
    expectRefused(batching({ password_env_var: '1PASS' }), 'password-env-name', 'parameters.password_env_var'));
  it("an unset password_env_var is no refusal: as the seed's GetEnv, it means no password", () =>
    expect(problemsOf(batching({ password_env_var: 'CH_SECRET' }))).toEqual([]));
  it('database-empty', () => expectRefused(batching({ database: '' }), 'database-empty', 'parameters.database'));
  it('table-required', () => {
    expectRefused(withoutKey(batching(), 'parameters', 'table'), 'table-required', 'parameters.table');
    expectRefused(batching({ table: '' }), 'table-required', 'parameters.table');
  });
  it('codec', () => expectRefused(batching({ codec: 'gzip' }), 'codec', 'parameters.codec', /'none', 'lz4', 'zstd'/));
  it('tls-requires-enable-tls, for each TLS option', () => {
    expectRefused(
      batching({ tls_ca_files: ['/ca.pem'] }),
      'tls-requires-enable-tls',
      'parameters.tls_ca_files',
      /requires enable_tls = true/,
    );
    expectRefused(batching({ tls_ca_directory: '/certs' }), 'tls-requires-enable-tls', 'parameters.tls_ca_directory');
    expectRefused(
      batching({ tls_skip_verification: true }),
      'tls-requires-enable-tls',
      'parameters.tls_skip_verification',
    );
    expect(problemsOf(batching({ tls_ca_files: [], tls_ca_directory: '', tls_skip_verification: false }))).toEqual([]);
  });
  it('duration', () => {
    const dynamic = (dynamic_parameters: Json) => batching({}, { dynamic_parameters });
    expectRefused(dynamic({ write_timeout: '10' }), 'duration', 'dynamic_parameters.write_timeout', /unit/);
    expectRefused(dynamic({ write_timeout: 0 }), 'duration', 'dynamic_parameters.write_timeout', /from 1ms/);
    expectRefused(dynamic({ retry_backoff: '30d' }), 'duration', 'dynamic_parameters.retry_backoff');
    expectRefused(dynamic({ replay_horizon: '1 day' }), 'duration', 'dynamic_parameters.replay_horizon');
    expect(problemsOf(dynamic({ retry_backoff: 0 }))).toEqual([]);
  });
  it('max-insert-attempts-range', () =>
    expectRefused(
      batching({}, { dynamic_parameters: { max_insert_attempts: 0 } }),
      'max-insert-attempts-range',
      'dynamic_parameters.max_insert_attempts',
    ));
  it('max-rows-per-batch-range: 1..2000', () => {
    for (const value of [0, 2001, 1.5])
      expectRefused(
        batching({}, { dynamic_parameters: { max_rows_per_batch: value } }),
        'max-rows-per-batch-range',
        'dynamic_parameters.max_rows_per_batch',
        /from 1 to 2000/,
      );
    expect(problemsOf(sharded({}, { dynamic_parameters: { max_rows_per_batch: 2000 } }))).toEqual([]);
  });
  it('max-bytes-per-batch-range: 1 byte..10 MiB', () => {
    for (const value of [0, 10_485_761])
      expectRefused(
        batching({}, { dynamic_parameters: { max_bytes_per_batch: value } }),
        'max-bytes-per-batch-range',
        'dynamic_parameters.max_bytes_per_batch',
        /from 1 to 10485760/,
      );
    expect(problemsOf(batching({}, { dynamic_parameters: { max_bytes_per_batch: 10_485_760 } }))).toEqual([]);
  });
  it('total-queue-bytes-limit-range', () =>
    expectRefused(
      ofClass(
        'AtMostOnceClickHouseSink',
        {},
        { dynamic_parameters: { at_most_once_strategy: { total_queue_bytes_limit: 0 } } },
      ),
      'total-queue-bytes-limit-range',
      'dynamic_parameters.at_most_once_strategy.total_queue_bytes_limit',
    ));
});
