import type { ClickHouseClient } from '@clickhouse/client';
import { Toxiproxy, type Toxic } from 'toxiproxy-node-client';
import { harnessClient, type StartedLocalCluster } from '../../harness/cluster/index.ts';
import { startEmbeddedCluster } from '../../harness/cluster/embedded/start-embedded.ts';
import { readReplicaCounts } from '../../harness/oracle/replica-counts.ts';
import type { SinkContext, SinkMessage } from '../api.ts';
import { SINK_IMPLEMENTATIONS } from '../classes/create-sink.ts';
import { messageId } from '../domain/message-id.ts';
import { shardName, type ShardName } from '../domain/shard-name.ts';
import { RendezvousRouter } from '../routing/rendezvous-router.ts';
import { routingKeyFor } from '../routing/routing-key.ts';
import type { SinkSpec } from '../spec/sink-spec.ts';
import { parseSinkSpec } from '../spec/validate-spec.ts';
import type { StreamColumn } from '../types/stream-type.ts';
import { clusterAddressBook, clusterShardHosts, NOMINAL_PORT } from './cluster-endpoints.ts';
import { captureLogs } from './log-capture.ts';
import { RecordingObserver } from './recording-observer.ts';

/** How long a query's end may take to reach query_log after its answer reached the client. */
const LOG_WAIT_MS = 10_000;

/** The embedded 2x2 cluster with what the sink integration tests need around it. */
export class SinkTestCluster {
  private constructor(
    readonly cluster: StartedLocalCluster,
    readonly nodes: ReadonlyMap<string, ClickHouseClient>,
    private readonly toxiproxy: Toxiproxy,
  ) {}

  static async start(): Promise<SinkTestCluster> {
    const cluster = await startEmbeddedCluster({ topology: { shards: 2, replicas: 2, keepers: 1 } });
    const nodes = new Map(
      cluster.description.shards.flatMap((shard) =>
        shard.replicas.map((replica) => [replica.name, harnessClient(replica.http)] as const),
      ),
    );
    return new SinkTestCluster(cluster, nodes, new Toxiproxy(cluster.description.toxiproxy ?? ''));
  }

  node(name: string): ClickHouseClient {
    const client = this.nodes.get(name);
    if (!client) throw new Error(`no node ${name}`);
    return client;
  }

  get shardHosts(): Record<string, string[]> {
    return clusterShardHosts(this.cluster.description);
  }

  spec(
    raw: { sink_class_name: string; parameters: Record<string, unknown>; dynamic_parameters?: Record<string, unknown> },
    database: string,
  ): SinkSpec {
    return parseSinkSpec(
      { name: 'it', ...raw, parameters: { port: NOMINAL_PORT, database, ...raw.parameters } },
      { registry: SINK_IMPLEMENTATIONS },
    );
  }

  context(
    streamSchema: readonly StreamColumn[],
    partition = 0,
  ): SinkContext & { observer: RecordingObserver; records: Record<string, unknown>[] } {
    const { logger, records } = captureLogs();
    return {
      partition,
      observer: new RecordingObserver(),
      env: {},
      streamSchema,
      resolveEndpoint: clusterAddressBook(this.cluster.description),
      logger,
      records,
    };
  }

  async command(nodes: readonly string[], query: string): Promise<void> {
    for (const name of nodes) await this.node(name).command({ query });
  }

  /** Rows per id on one node of a local table (`eo.sharded_rep`), read as the chaos job's oracle reads them. */
  private async countsOn(node: string, table: string): Promise<ReadonlyMap<string, number>> {
    const [truth] = await readReplicaCounts(this.cluster.description, { localTable: table, replicas: [node] });
    if (!truth) throw new Error(`no node ${node}`);
    return truth.counts;
  }

  /** The ids of the rows on one node, sorted, with repetition: a duplicated row shows twice. */
  async idsOn(node: string, table: string): Promise<string[]> {
    const counts = await this.countsOn(node, table);
    return [...counts].flatMap(([id, n]) => Array<string>(n).fill(id)).sort();
  }

  /** The `system.query_log` row of one query's end, once the node has logged it. */
  async queryLogOf(
    node: string,
    queryId: string,
  ): Promise<{ type: string; written_rows: number | string; token: string } | undefined> {
    const rows = await this.untilLogged(node, {
      query:
        "SELECT type, written_rows, Settings['insert_deduplication_token'] AS token FROM system.query_log WHERE query_id = {id:String} AND type != 'QueryStart'",
      query_params: { id: queryId },
    });
    return rows[0] as { type: string; written_rows: number | string; token: string } | undefined;
  }

  /**
   * The rows a query_log read returns once they are there, or none after LOG_WAIT_MS. A client
   * can have the INSERT's answer before the server has queued its end in query_log, so one
   * flush right after the answer can miss it on a loaded machine.
   */
  async untilLogged(
    node: string,
    read: { query: string; query_params: Record<string, unknown> },
  ): Promise<Record<string, unknown>[]> {
    const deadline = Date.now() + LOG_WAIT_MS;
    for (;;) {
      await this.node(node).command({ query: 'SYSTEM FLUSH LOGS' });
      const result = await this.node(node).query({ ...read, format: 'JSONEachRow' });
      const rows = await result.json<Record<string, unknown>>();
      if (rows.length > 0 || Date.now() >= deadline) return rows;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async count(node: string, table: string): Promise<number> {
    let rows = 0;
    for (const n of (await this.countsOn(node, table)).values()) rows += n;
    return rows;
  }

  /** Disables (connection refused) or enables a node's client proxy. */
  async setReachable(node: string, reachable: boolean): Promise<void> {
    const proxy = await this.toxiproxy.get(`${node}_client`);
    await proxy.update({ enabled: reachable, listen: proxy.listen, upstream: proxy.upstream });
  }

  /** Delays every answer of a node by `ms` (the request still reaches the server). */
  async delayAnswers(node: string, ms: number): Promise<Toxic<unknown>> {
    const proxy = await this.toxiproxy.get(`${node}_client`);
    return proxy.addToxic({
      name: `slow_answers_${node}`,
      type: 'latency',
      stream: 'downstream',
      toxicity: 1,
      attributes: { latency: ms, jitter: 0 },
    } as never);
  }

  async down(): Promise<void> {
    await Promise.all([...this.nodes.values()].map((client) => client.close()));
    await this.cluster.down();
  }
}

/** `count` messages from `first`, ids `1-<partition>-<seq>`, rows `{ id: m<seq>, v: seq }`. */
export function messagesFrom(first: number, count: number, partition = 0): SinkMessage[] {
  return Array.from({ length: count }, (_, i) => {
    const seq = first + i;
    return { id: messageId(`1-${partition}-${seq}`), row: { id: `m${seq}`, v: seq }, byteSize: 10 };
  });
}

/** The shard rendezvous routing names for a message (routing by message id). */
export function expectedShard(message: SinkMessage, shards: readonly string[]): ShardName {
  return new RendezvousRouter(shards.map(shardName)).route(routingKeyFor(message.id, message.row, []));
}
