import type { ClickHouseClient } from '@clickhouse/client';
import { Kafka, logLevel } from 'kafkajs';
import { harnessClient, KAFKA_PRODUCER, type StartedCluster } from '../../harness/cluster/index.ts';
import { HarnessError } from '../../harness/base/index.ts';
import type { FaultProxyClient } from './fault-proxy-client.ts';

/**
 * One thing the harness did to a cluster, recorded before it is done (`undo-journal.ts`), with
 * exactly what undoes it. Plain data: a runner killed mid-run leaves these for `--reap`.
 */
export type UndoAction =
  | { readonly kind: 'toxic'; readonly proxy: string; readonly toxic: string }
  | { readonly kind: 'proxy-disabled'; readonly proxy: string }
  | { readonly kind: 'member-paused'; readonly member: string }
  | { readonly kind: 'member-killed'; readonly member: string }
  | {
      readonly kind: 'table-setting';
      readonly replica: string;
      readonly database: string;
      readonly table: string;
      readonly setting: string;
    }
  | { readonly kind: 'table-detached'; readonly replica: string; readonly database: string; readonly table: string }
  | {
      readonly kind: 'constraint';
      readonly replica: string;
      readonly database: string;
      readonly table: string;
      readonly constraint: string;
    }
  | { readonly kind: 'failpoint'; readonly replica: string; readonly failpoint: string }
  | { readonly kind: 'database'; readonly replica: string; readonly database: string }
  | { readonly kind: 'kafka-topic'; readonly topic: string };

export type UndoKind = UndoAction['kind'];

/** What the undo acts through: the cluster's members and description, and its fault proxy. */
export interface UndoDeps {
  readonly cluster: StartedCluster;
  readonly proxies: FaultProxyClient;
}

const CLICKHOUSE_DEADLINE_MS = 10_000;
/** ClickHouse's codes for a database or table that is no longer there: nothing of it is left to restore. */
const GONE = new Set(['60', '81']);

const quoted = (database: string, table?: string) =>
  table === undefined ? `\`${database}\`` : `\`${database}\`.\`${table}\``;

/** The action as one line of a report or of `--reap`'s output. */
export function describeAction(action: UndoAction): string {
  switch (action.kind) {
    case 'toxic':
      return `toxic ${action.toxic} on proxy ${action.proxy}`;
    case 'proxy-disabled':
      return `proxy ${action.proxy} disabled`;
    case 'member-paused':
      return `member ${action.member} paused`;
    case 'member-killed':
      return `member ${action.member} killed`;
    case 'table-setting':
      return `setting ${action.setting} of ${action.database}.${action.table} on ${action.replica}`;
    case 'table-detached':
      return `table ${action.database}.${action.table} detached on ${action.replica}`;
    case 'constraint':
      return `constraint ${action.constraint} on ${action.database}.${action.table} (via ${action.replica})`;
    case 'failpoint':
      return `failpoint ${action.failpoint} enabled on ${action.replica}`;
    case 'database':
      return `database ${action.database} created on ${action.replica}`;
    case 'kafka-topic':
      return `Kafka topic ${action.topic} created`;
  }
}

async function onReplica<T>(deps: UndoDeps, replica: string, work: (client: ClickHouseClient) => Promise<T>) {
  const description = deps.cluster.description;
  const endpoint = description.shards.flatMap((shard) => shard.replicas).find((r) => r.name === replica);
  if (endpoint === undefined)
    throw new HarnessError(
      'UNDO_UNKNOWN_REPLICA',
      `the undo journal names replica ${replica}, which the cluster description does not have; was the cluster file changed since?`,
    );
  const client = harnessClient(endpoint.direct_http, {
    timeoutMs: CLICKHOUSE_DEADLINE_MS,
    credentials: description.credentials,
  });
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** A statement that restores something of a table; the table or its database already gone counts as restored. */
async function restore(deps: UndoDeps, replica: string, query: string, settings = {}): Promise<'done' | 'gone'> {
  return onReplica(deps, replica, async (client) => {
    try {
      await client.command({ query, clickhouse_settings: settings });
      return 'done';
    } catch (error) {
      if (GONE.has(String((error as { code?: unknown }).code))) return 'gone';
      throw error;
    }
  });
}

const already = (what: string) => `${what}: already undone`;

/** Kafka's error for a topic that is not there: nothing of it is left to delete. */
const TOPIC_GONE = 'UNKNOWN_TOPIC_OR_PARTITION';

/** Deletes a topic the harness created through the producer's links; false when it is gone already. */
async function deleteTopic(deps: UndoDeps, topic: string): Promise<boolean> {
  const bootstrapBrokers = (deps.cluster.description.kafka ?? []).map(
    (broker) => broker.bootstrap[KAFKA_PRODUCER] ?? '',
  );
  if (bootstrapBrokers.length === 0)
    throw new HarnessError(
      'UNDO_NO_BROKERS',
      `the undo journal names Kafka topic ${topic}, but the cluster description names no broker; was the cluster file changed since?`,
    );
  const admin = new Kafka({
    clientId: 'chaos-undo',
    brokers: bootstrapBrokers,
    logLevel: logLevel.NOTHING,
    requestTimeout: CLICKHOUSE_DEADLINE_MS,
    retry: { retries: 1 },
  }).admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) return false;
    await admin.deleteTopics({ topics: [topic], timeout: CLICKHOUSE_DEADLINE_MS });
    return true;
  } catch (error) {
    if ((error as { type?: unknown }).type === TOPIC_GONE) return false;
    throw error;
  } finally {
    await admin.disconnect();
  }
}

/**
 * Undoes one action and says what it did. Each undo is safe to repeat: it acts only where the
 * action is still in force (a toxic still on its proxy, a killed member not running), and a
 * pause is undone by `resume` whatever a health probe says.
 */
export async function undoAction(action: UndoAction, deps: UndoDeps): Promise<string> {
  switch (action.kind) {
    case 'toxic': {
      const proxy = await deps.proxies.proxy(action.proxy);
      if (!proxy.toxics.some((toxic) => toxic.name === action.toxic)) return already(describeAction(action));
      await deps.proxies.removeToxic(action.proxy, action.toxic);
      return `removed toxic ${action.toxic} from proxy ${action.proxy}`;
    }
    case 'proxy-disabled':
      await deps.proxies.setEnabled(action.proxy, true);
      return `enabled proxy ${action.proxy}`;
    case 'member-paused':
      await deps.cluster.resume(action.member);
      return `resumed member ${action.member}`;
    case 'member-killed':
      // Only an answer makes `running`: a member that answers was started again already.
      if ((await deps.cluster.memberState(action.member)) === 'running') return already(describeAction(action));
      await deps.cluster.start(action.member);
      return `started member ${action.member}`;
    case 'table-setting': {
      const table = quoted(action.database, action.table);
      const result = await restore(deps, action.replica, `ALTER TABLE ${table} RESET SETTING ${action.setting}`);
      return result === 'gone'
        ? already(describeAction(action))
        : `reset ${action.setting} of ${action.database}.${action.table} on ${action.replica}`;
    }
    case 'table-detached': {
      const present = await onReplica(deps, action.replica, async (client) => {
        const result = await client.query({
          query: 'SELECT count() AS n FROM system.tables WHERE database = {database:String} AND name = {table:String}',
          query_params: { database: action.database, table: action.table },
          format: 'JSONEachRow',
        });
        return Number((await result.json<{ n: string }>())[0]?.n ?? 0) > 0;
      });
      if (present) return already(describeAction(action));
      const result = await restore(deps, action.replica, `ATTACH TABLE ${quoted(action.database, action.table)}`);
      return result === 'gone'
        ? already(describeAction(action))
        : `re-attached ${action.database}.${action.table} on ${action.replica}`;
    }
    case 'constraint': {
      const table = quoted(action.database, action.table);
      const result = await restore(
        deps,
        action.replica,
        `ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${action.constraint}`,
        { alter_sync: '2' },
      );
      return result === 'gone'
        ? already(describeAction(action))
        : `dropped constraint ${action.constraint} of ${action.database}.${action.table}`;
    }
    case 'failpoint':
      await restore(deps, action.replica, `SYSTEM DISABLE FAILPOINT ${action.failpoint}`);
      return `disabled failpoint ${action.failpoint} on ${action.replica}`;
    case 'database':
      await restore(deps, action.replica, `DROP DATABASE IF EXISTS ${quoted(action.database)} SYNC`);
      return `dropped database ${action.database} on ${action.replica}`;
    case 'kafka-topic':
      return (await deleteTopic(deps, action.topic))
        ? `deleted Kafka topic ${action.topic}`
        : already(describeAction(action));
  }
}
