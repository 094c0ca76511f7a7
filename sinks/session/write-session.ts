import type { Logger } from 'pino';
import type { ResolveEndpoint } from '../api.ts';
import { EndpointRotation, type Random } from '../endpoints/endpoint-rotation.ts';
import type { DynamicParameters, SinkSpec } from '../spec/sink-spec.ts';
import { currentFingerprints, targetSlotsOf } from '../topology/spec-topology.ts';
import { UNSHARDED_TARGET, type TargetSlot, type TopologyFingerprints } from '../topology/topology-guard.ts';
import type { ColumnPlan } from '../types/schema-check.ts';
import type { StreamColumn } from '../types/stream-type.ts';
import { dedupWindowFacts, type DedupWindowFacts } from './dedup-window-facts.ts';
import { warnOnShortDedupWindow } from './dedup-window-check.ts';
import { EndpointClient, unsetPasswordWarning } from './endpoint-client.ts';
import { endpointRefusal, type EndpointFailure } from './endpoint-failure.ts';
import { readEndpointMetadata, serverDedupSettings, type EndpointMetadata } from './endpoint-metadata.ts';
import { endpointOf, type Endpoint } from './endpoint.ts';
import { checkTargetMetadata } from './metadata-check.ts';
import type { WarnFn } from './session-warnings.ts';
import { loadTlsSettings, type TlsSettings } from './tls-settings.ts';

export interface WriteSessionOptions {
  readonly spec: SinkSpec;
  readonly dynamic: DynamicParameters;
  readonly env: NodeJS.ProcessEnv;
  readonly streamSchema: readonly StreamColumn[];
  readonly resolveEndpoint?: ResolveEndpoint;
  readonly random: Random;
  readonly log: Logger;
  /** Every warning the session gives (logged, and handed to the runtime). */
  readonly warn: WarnFn;
}

interface SlotEndpoint {
  readonly slot: TargetSlot;
  readonly endpoint: Endpoint;
}

/**
 * A sink instance's connection to its target: one client per endpoint, the endpoint rotation per
 * slot, and what the session-start checks established (column plan, fingerprints, dedup windows).
 * `open` connects to every endpoint and refuses the session when one is unreachable or the
 * metadata checks fail; the session is then kept until `close`.
 */
export class WriteSession {
  private clients: Map<string, EndpointClient>;
  private dynamic: DynamicParameters;

  private constructor(
    private readonly options: WriteSessionOptions,
    private readonly tls: TlsSettings | undefined,
    private readonly endpoints: readonly SlotEndpoint[],
    clients: Map<string, EndpointClient>,
    private metadata: readonly EndpointMetadata[],
    readonly plan: ColumnPlan,
    readonly fingerprints: TopologyFingerprints,
    private readonly rotations: ReadonlyMap<TargetSlot, EndpointRotation>,
  ) {
    this.clients = clients;
    this.dynamic = options.dynamic;
  }

  static async open(options: WriteSessionOptions): Promise<WriteSession> {
    const { parameters } = options.spec;
    const tls = loadTlsSettings(parameters);
    const slots = targetSlotsOf(parameters);
    const endpoints = [...slots].flatMap(([slot, hosts]) =>
      hosts.map((host) => ({ slot, endpoint: endpointOf(host, parameters.port, options.resolveEndpoint) })),
    );
    const unsetPassword = unsetPasswordWarning(parameters, options.env);
    if (unsetPassword !== undefined)
      options.warn({
        kind: 'password-unset',
        message: unsetPassword,
        fields: { password_env_var: parameters.password_env_var },
      });
    const clients = createClients(options, tls, endpoints, options.dynamic.write_timeout);
    try {
      const metadata = await readAll(endpoints, clients, parameters.database, parameters.table);
      const checked = checkTargetMetadata({
        database: parameters.database,
        table: parameters.table,
        slots: [...slots].map(([slot, hosts]) => ({
          slot,
          hosts,
          endpoints: metadata.filter((_, i) => endpoints[i]?.slot === slot),
        })),
        streamSchema: options.streamSchema,
        shardingKeyColumns: parameters.sharding_key_columns,
      });
      for (const warning of checked.warnings)
        options.warn({ ...warning, fields: { database: parameters.database, table: parameters.table } });
      const rotations = new Map(
        [...slots].map(([slot, hosts]) => [
          slot,
          new EndpointRotation(hosts, parameters.host_selection_policy, options.random),
        ]),
      );
      const session = new WriteSession(
        options,
        tls,
        endpoints,
        clients,
        metadata,
        checked.plan,
        currentFingerprints(parameters, checked.slots),
        rotations,
      );
      session.checkDedupWindow();
      return session;
    } catch (error) {
      await Promise.all([...clients.values()].map((client) => client.close()));
      throw error;
    }
  }

  get database(): string {
    return this.options.spec.parameters.database;
  }

  get table(): string {
    return this.options.spec.parameters.table;
  }

  /** The smallest windows over every endpoint, as last read. */
  get dedupWindow(): DedupWindowFacts {
    return dedupWindowFacts(this.metadata);
  }

  rotation(slot: TargetSlot): EndpointRotation {
    const rotation = this.rotations.get(slot);
    if (!rotation) throw new Error(`no endpoints for target slot ${slot}`);
    return rotation;
  }

  client(slot: TargetSlot, host: string): EndpointClient {
    const client = this.clients.get(keyOf(slot, host));
    if (!client) throw new Error(`no client for ${host} in target slot ${slot}`);
    return client;
  }

  /**
   * Dynamic reconfiguration, without the metadata check: a new `write_timeout` recreates the
   * clients (requests in flight finish on the old ones) and re-reads the dedup window through
   * them; a new `replay_horizon` or `async_insert` re-runs only the window comparison.
   */
  async reconfigure(dynamic: DynamicParameters): Promise<void> {
    const previous = this.dynamic;
    this.dynamic = dynamic;
    if (dynamic.write_timeout !== previous.write_timeout) {
      const old = this.clients;
      this.clients = createClients(this.options, this.tls, this.endpoints, dynamic.write_timeout);
      for (const client of old.values()) client.retire();
      await this.rereadDedupWindow();
    }
    if (
      dynamic.write_timeout !== previous.write_timeout ||
      dynamic.replay_horizon !== previous.replay_horizon ||
      dynamic.async_insert !== previous.async_insert
    ) {
      this.checkDedupWindow();
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((client) => client.close()));
  }

  private checkDedupWindow(): void {
    warnOnShortDedupWindow(this.options.warn, this, this.dynamic, this.dedupWindow);
  }

  /** Best effort: an endpoint that cannot be read now keeps the values read before. */
  private async rereadDedupWindow(): Promise<void> {
    const refreshed = await Promise.all(
      this.endpoints.map(async ({ slot, endpoint }, i) => {
        const previous = this.metadata[i] as EndpointMetadata;
        try {
          return await this.client(slot, endpoint.host).use(async (client) => {
            const [tables, serverSettings] = await Promise.all([
              client.query({
                query:
                  'SELECT engine, engine_full FROM system.tables WHERE database = {database:String} AND name = {table:String}',
                query_params: { database: this.database, table: this.table },
                format: 'JSONEachRow',
              }),
              serverDedupSettings(client),
            ]);
            const [table] = await tables.json<{ engine: string; engine_full: string }>();
            return { ...previous, table: table ?? previous.table, serverSettings };
          });
        } catch (error) {
          this.options.log.warn(
            { endpoint: endpoint.label, err: error },
            'Could not re-read the dedup window after a write_timeout change; comparing the values read before',
          );
          return previous;
        }
      }),
    );
    this.metadata = refreshed;
  }
}

function keyOf(slot: TargetSlot, host: string): string {
  return `${slot === UNSHARDED_TARGET ? '' : slot}\u0000${host}`;
}

function createClients(
  options: WriteSessionOptions,
  tls: TlsSettings | undefined,
  endpoints: readonly SlotEndpoint[],
  writeTimeoutMs: number,
): Map<string, EndpointClient> {
  const { parameters } = options.spec;
  return new Map(
    endpoints.map(({ slot, endpoint }) => [
      keyOf(slot, endpoint.host),
      new EndpointClient(endpoint, { parameters, env: options.env, writeTimeoutMs, tls }),
    ]),
  );
}

async function readAll(
  endpoints: readonly SlotEndpoint[],
  clients: Map<string, EndpointClient>,
  database: string,
  table: string,
): Promise<EndpointMetadata[]> {
  const results = await Promise.allSettled(
    endpoints.map(({ slot, endpoint }) => {
      const client = clients.get(keyOf(slot, endpoint.host)) as EndpointClient;
      return client.use((raw) => readEndpointMetadata(raw, endpoint.label, database, table));
    }),
  );
  const failures: EndpointFailure[] = [];
  results.forEach((result, i) => {
    const { slot, endpoint } = endpoints[i] as SlotEndpoint;
    if (result.status === 'rejected')
      failures.push({
        endpoint: endpoint.label,
        shard: slot === UNSHARDED_TARGET ? undefined : slot,
        error: result.reason,
      });
  });
  if (failures.length > 0) throw endpointRefusal(failures, `${database}.${table}`);
  return results.map((result) => (result as PromiseFulfilledResult<EndpointMetadata>).value);
}
