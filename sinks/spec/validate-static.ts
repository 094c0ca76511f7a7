import type { SinkClassDescriptor } from '../sink-classes.ts';
import { suggestion } from './closest-name.ts';
import { isJsonObject, ObjectReader, show } from './object-reader.ts';
import { DEFAULTS } from './parameter-catalog.ts';
import { CODECS, HOST_SELECTION_POLICIES, type StaticParameters } from './sink-spec.ts';
import type { HostValidation } from './validate-hosts.ts';

/** The static parameters other than the host forms; undefined when the host forms were refused. */
export function readStaticParameters(
  reader: ObjectReader,
  sinkClass: SinkClassDescriptor | undefined,
  hosts: HostValidation,
): StaticParameters | undefined {
  const { problems } = reader;
  const port = reader.integer('port', DEFAULTS.port, { min: 1, max: 65_535, rule: 'port-range' });
  const host_selection_policy = reader.oneOf(
    'host_selection_policy',
    HOST_SELECTION_POLICIES,
    DEFAULTS.host_selection_policy,
    'host-selection-policy',
  );
  const codec = reader.oneOf('codec', CODECS, DEFAULTS.codec, 'codec');

  const user = reader.string('user', DEFAULTS.user);
  if (user === '')
    problems.add('user-empty', reader.pathOf('user'), 'must not be empty; omit it to connect as default');

  const password_env_var = reader.string('password_env_var', DEFAULTS.password_env_var);
  // An unset variable is no refusal: the seed's GetEnv gives "" (no password); the session warns.
  if (password_env_var !== '' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(password_env_var)) {
    problems.add(
      'password-env-name',
      reader.pathOf('password_env_var'),
      `${show(password_env_var)} is not an environment variable name (letters, digits, '_', not starting with a digit)`,
    );
  }

  const database = reader.string('database', DEFAULTS.database);
  if (database === '')
    problems.add('database-empty', reader.pathOf('database'), 'must not be empty; omit it for default');
  const table = reader.string('table', '');
  if (table === '')
    problems.add(
      'table-required',
      reader.pathOf('table'),
      'is required: the target table, the same <database>.<table> on every host of every shard',
    );

  const enable_tls = reader.boolean('enable_tls', false);
  const tls_ca_files = reader.stringList('tls_ca_files') ?? [];
  const tls_ca_directory = reader.string('tls_ca_directory', '');
  const tls_skip_verification = reader.boolean('tls_skip_verification', false);
  if (!enable_tls) {
    const requiresTls = (key: string, what: string) =>
      problems.add(
        'tls-requires-enable-tls',
        reader.pathOf(key),
        `${what} requires enable_tls = true; set enable_tls or remove ${key}`,
      );
    if (tls_ca_files.length > 0) requiresTls('tls_ca_files', 'a non-empty list');
    if (tls_ca_directory !== '') requiresTls('tls_ca_directory', 'a non-empty path');
    if (tls_skip_verification) requiresTls('tls_skip_verification', 'true');
  }

  const at_most_once_strategy = sinkClass?.atMostOnceStrategy ? readStaticStrategy(reader) : undefined;
  if (hosts.topology === undefined) return undefined;
  return {
    topology: hosts.topology,
    port,
    sharding_key_columns: hosts.shardingKeyColumns,
    host_selection_policy,
    user,
    password_env_var,
    database,
    table,
    codec,
    enable_tls,
    tls_ca_files,
    tls_ca_directory,
    tls_skip_verification,
    ...(at_most_once_strategy ? { at_most_once_strategy } : {}),
  };
}

function readStaticStrategy(reader: ObjectReader): { enabled: boolean } {
  const value = reader.raw('at_most_once_strategy');
  if (value === undefined) return { enabled: false };
  const path = reader.pathOf('at_most_once_strategy');
  if (!isJsonObject(value)) {
    reader.problems.add('parameter-type', path, `must be an object like {"enabled": true}, got ${show(value)}`);
    return { enabled: false };
  }
  for (const key of Object.keys(value).filter((k) => k !== 'enabled')) {
    if (key === 'total_queue_bytes_limit') {
      reader.problems.add(
        'parameter-section',
        `${path}.${key}`,
        'is dynamic; set it under dynamic_parameters.at_most_once_strategy',
      );
    } else {
      reader.problems.add(
        'parameter-unknown',
        `${path}.${key}`,
        `is not a field of at_most_once_strategy${suggestion(key, ['enabled'])}; the static strategy has only enabled`,
      );
    }
  }
  return { enabled: new ObjectReader(value, path, reader.problems).boolean('enabled', false) };
}
