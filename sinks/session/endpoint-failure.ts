import { ClickHouseError } from '@clickhouse/client';
import { SinkError } from '../errors.ts';

export interface EndpointFailure {
  readonly endpoint: string;
  /** The shard, or undefined for the unsharded forms. */
  readonly shard: string | undefined;
  readonly error: unknown;
}

const TLS_VERIFICATION = /CERT|SIGNATURE|ALTNAME|ISSUER|ERR_SSL|ERR_TLS/;

/**
 * One refusal for the endpoints a session could not read, naming each. A TLS verification failure
 * gets its own code (`SINK_TLS_REFUSED`: configuration, classified permanent through its cause);
 * an answer from ClickHouse (access, missing grants) is `SINK_METADATA_READ_FAILED`; anything
 * else is `SINK_ENDPOINT_UNREACHABLE` (transient through its cause). The first failure is the cause.
 */
export function endpointRefusal(failures: readonly EndpointFailure[], target: string): SinkError {
  const describe = (failure: EndpointFailure) =>
    `${failure.endpoint}${failure.shard === undefined ? '' : ` (shard '${failure.shard}')`}: ${firstLine(failure.error)}`;
  const tls = failures.filter((failure) => isTlsVerificationError(failure.error));
  if (tls.length > 0) {
    return new SinkError(
      'SINK_TLS_REFUSED',
      `Cannot start the write session for ${target}: the server certificate was not accepted by ${tls.map(describe).join('; ')}; add the issuing CA to tls_ca_files or tls_ca_directory (tls_skip_verification only for tests)`,
      { cause: tls[0]?.error },
    );
  }
  const answered = failures.filter((failure) => failure.error instanceof ClickHouseError);
  if (answered.length === failures.length) {
    return new SinkError(
      'SINK_METADATA_READ_FAILED',
      `Cannot start the write session for ${target}: reading the table metadata failed on ${answered.map(describe).join('; ')}; the sink's user needs SELECT on system.tables, system.columns, system.replicas and system.merge_tree_settings`,
      { cause: answered[0]?.error },
    );
  }
  const unreachable = failures.filter((failure) => !(failure.error instanceof ClickHouseError));
  return new SinkError(
    'SINK_ENDPOINT_UNREACHABLE',
    `Cannot start the write session for ${target}: endpoint(s) unreachable: ${unreachable.map(describe).join('; ')}; every endpoint of every shard must be reachable when the session starts`,
    { cause: unreachable[0]?.error },
  );
}

export function isTlsVerificationError(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && TLS_VERIFICATION.test(code)) return true;
    current = current.cause;
  }
  return false;
}

function firstLine(error: unknown): string {
  const text =
    error instanceof Error ? error.message || (error as { code?: string }).code || error.name : String(error);
  return text.split('\n')[0] ?? '';
}
