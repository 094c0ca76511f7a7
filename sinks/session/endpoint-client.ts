import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import type { StaticParameters } from '../spec/sink-spec.ts';
import { endpointUrl, type Endpoint } from './endpoint.ts';
import { requestCompressionFor } from './request-compression.ts';
import { RequestTracer, tracingAgent } from './request-trace.ts';
import type { TlsSettings } from './tls-settings.ts';

export interface EndpointClientOptions {
  readonly endpoint: Endpoint;
  readonly parameters: StaticParameters;
  readonly env: NodeJS.ProcessEnv;
  /** `write_timeout`: the socket idle timeout of every request (per network operation, as in the original). */
  readonly writeTimeoutMs: number;
  readonly tls: TlsSettings | undefined;
}

/**
 * One `@clickhouse/client` per endpoint. Keep-alive is off: a pooled socket that a fault proxy or
 * the server already closed fails the next request with ECONNRESET after the request was written,
 * which would have to be reported as an unknown outcome although nothing ran. With a fresh
 * connection per request (a loopback or LAN handshake, small next to an INSERT) a reset is a real
 * fault. Retired clients close once their last request ended, so a `write_timeout` change never
 * cuts an INSERT in flight.
 */
export class EndpointClient {
  readonly client: ClickHouseClient;
  readonly tracer = new RequestTracer();
  private inFlight = 0;
  private retired = false;

  constructor(
    readonly endpoint: Endpoint,
    options: Omit<EndpointClientOptions, 'endpoint'>,
  ) {
    const { parameters } = options;
    this.client = createClient({
      url: endpointUrl(endpoint, options.tls !== undefined),
      username: parameters.user,
      password: passwordOf(parameters, options.env),
      database: parameters.database,
      request_timeout: options.writeTimeoutMs,
      compression: requestCompressionFor(parameters.codec),
      keep_alive: { enabled: false },
      http_agent: tracingAgent(options.tls, this.tracer),
      application: 'clickhouse-sink',
      // The sink logs and classifies failures itself; the client's console logger would double them.
      log: { level: ClickHouseLogLevel.OFF },
    });
  }

  async use<T>(run: (client: ClickHouseClient) => Promise<T>): Promise<T> {
    this.inFlight += 1;
    try {
      return await run(this.client);
    } finally {
      this.inFlight -= 1;
      if (this.retired && this.inFlight === 0) void this.client.close();
    }
  }

  /** Closes now if idle, else after the last request in flight. */
  retire(): void {
    this.retired = true;
    if (this.inFlight === 0) void this.client.close();
  }

  async close(): Promise<void> {
    this.retired = true;
    await this.client.close();
  }
}

/**
 * `password_env_var` is read when the client is created, as the seed's GetEnv does: "" means no
 * password, and so does a variable that is not set (the session warns about it: `unsetPasswordWarning`).
 */
export function passwordOf(parameters: Pick<StaticParameters, 'password_env_var'>, env: NodeJS.ProcessEnv): string {
  if (parameters.password_env_var === '') return '';
  return env[parameters.password_env_var] ?? '';
}

/** What a session logs when `password_env_var` names a variable the environment does not set. */
export function unsetPasswordWarning(
  parameters: Pick<StaticParameters, 'password_env_var'>,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (parameters.password_env_var === '' || env[parameters.password_env_var] !== undefined) return undefined;
  return `password_env_var names ${parameters.password_env_var}, which is not set in the sink's environment: connecting without a password, as an empty variable would`;
}
