import type { ClickHouseClient } from '@clickhouse/client';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { HarnessError } from '../../harness/base/index.ts';
import { createDatabaseDdl } from '../../harness/clickhouse/index.ts';
import {
  type ClusterDescription,
  harnessClient,
  queryRows,
  queryValue,
  type ReplicaDescription,
  type StartedCluster,
} from '../../harness/cluster/index.ts';
import {
  checkEngineRun,
  type EngineCheck,
  type EngineObservation,
  type StoredRow,
} from '../../properties/checkers/index.ts';
import {
  describedProxies,
  ensureProxiesClean,
  type Fault,
  type FaultWindow,
  type NemesisContext,
  RunUndo,
  type UndoJournal,
} from '../nemeses/index.ts';
import { aimsAtConsumer, type EngineFaultSpec, engineFaults } from './engine-faults.ts';
import { type EngineSettings, kafkaTableDdl, owedBy, targetTableDdl, viewDdl } from './engine-settings.ts';
import {
  auditTopic,
  committedOffsets,
  createTopic,
  replicaBootstrap,
  SourceProducer,
  topicSize,
} from './engine-topic.ts';
import { expectedRow, SOURCE_COLUMNS } from './source.ts';

/**
 * A user's mistake in setting the path up, planted to prove the checker sees what it costs:
 * `unfiltered-view`, a view under `stream` that keeps the rows of messages that did not parse;
 * `local-target`, a plain MergeTree on every replica instead of a replicated one, so each
 * replica holds only what its own consumer wrote.
 */
export type SetupMistake = 'unfiltered-view' | 'local-target';

/** One run's whole input, drawn by its scenario. */
export interface EngineRunInput {
  readonly settings: EngineSettings;
  readonly partitions: number;
  readonly messages: number;
  /** Ids produced unparsable (only as many as the settings let the table drop). */
  readonly broken: readonly number[];
  readonly chunks: number;
  /** The fault is applied after this many chunks were produced; the rest are produced while it is in force. */
  readonly faultAfterChunk: number;
  readonly holdMs: number;
  readonly fault: EngineFaultSpec;
  /** Which consuming replica, or which broker, the fault takes. */
  readonly pick: number;
}

/** How a run is bound to the cluster: its database (also its topic and group), dedup, and where it stores. */
export interface EngineRunContext {
  readonly cluster: StartedCluster;
  readonly journal: UndoJournal;
  readonly database: string;
  /** ClickHouse's block dedup off on the target: a block consumed twice cannot hide. */
  readonly dedupOff: boolean;
  readonly dir: string;
  readonly log: Logger;
  /** A deliberately misconfigured setup (the checkers' self-test); undefined: as a user should set it up. */
  readonly setup?: SetupMistake | undefined;
  /** Aborted by an interrupt: the run stops where it is, and its end undoes what it did. */
  readonly signal?: AbortSignal | undefined;
}

export interface EngineRunResult {
  readonly check: EngineCheck;
  /** Everything the check read: `npm run check` judges it again from the stored run. */
  readonly observation: EngineObservation;
  /** Each fault acted, on a consumer that had work: the run's coverage. */
  readonly fired: boolean;
  /** Why the fault does not count, or what the run saw besides. */
  readonly notes: readonly string[];
  readonly faults: readonly string[];
  readonly timings: { readonly trafficMs: number; readonly healMs: number; readonly checkMs: number };
}

const ASSIGN_DEADLINE_MS = 45_000;
/** ClickHouse's DATABASE_ALREADY_EXISTS (82): the CREATE did nothing, and the database is someone else's. */
const databaseTaken = (error: unknown): boolean => String((error as { code?: unknown }).code) === '82';
const CHUNK_PAUSE_MS = 150;
/** No new row for this long after the heal, with the topic not yet all stored: the engine stopped. */
const DRAIN_STALL_MS = 75_000;
const DRAIN_LIMIT_MS = 240_000;
/** No new row for this long with every partition committed to its end: what is missing is not coming. */
const CONSUMED_GRACE_MS = 15_000;
const SYNC_DEADLINE_S = 60;
const TOPIC_SETTLE_ROUNDS = 3;

const replicasOf = (description: ClusterDescription): ReplicaDescription[] =>
  description.shards.flatMap((shard) => shard.replicas);

function clientOf(description: ClusterDescription, replica: ReplicaDescription): ClickHouseClient {
  return harnessClient(replica.direct_http, { timeoutMs: 30_000, credentials: description.credentials });
}

/** Each replica's consumers' assigned partitions, read directly (around its proxies); a replica that does not answer holds none. */
async function assignments(description: ClusterDescription, database: string): Promise<Map<string, number[]>> {
  const held = new Map<string, number[]>();
  await Promise.all(
    replicasOf(description).map(async (replica) => {
      const client = clientOf(description, replica);
      try {
        const rows = await queryRows<{ p: number[] }>(
          client,
          `SELECT assignments.partition_id AS p FROM system.kafka_consumers WHERE database = '${database}' AND table = 'events_kafka'`,
        );
        held.set(
          replica.name,
          rows.flatMap((row) => row.p.map(Number)),
        );
      } catch {
        held.set(replica.name, []);
      } finally {
        await client.close();
      }
    }),
  );
  return held;
}

/**
 * Distinct ids stored on any replica: what has been consumed so far. The judge reads one replica
 * per shard after syncing them; the drain only waits for consumption to end.
 */
async function storedIds(description: ClusterDescription, database: string): Promise<number> {
  const ids = new Set<string>();
  for (const replica of replicasOf(description)) {
    const client = clientOf(description, replica);
    try {
      for (const row of await queryRows<{ id: string }>(client, `SELECT DISTINCT id FROM ${database}.events_rep`))
        ids.add(String(row.id));
    } catch {
      continue;
    } finally {
      await client.close();
    }
  }
  return ids.size;
}

const selectRow = `SELECT ${SOURCE_COLUMNS.map(({ name }) => `ifNull(toString(${name}), 'NULL') AS ${name}`).join(', ')}, kafka_partition, kafka_offset`;

/**
 * One Kafka engine run: the run's database on every replica (target, Kafka table, view) and its
 * topic, the source produced in chunks with the fault applied between two of them and held while
 * the rest is produced, the heal, the drain, then the topic audited and the target read. Whatever
 * the run made or did is undone at its end (its undo list: faults, databases, topic), on every path.
 */
export async function runEngine(context: EngineRunContext, input: EngineRunInput): Promise<EngineRunResult> {
  const { cluster, database, log } = context;
  const description = cluster.description;
  const undo = new RunUndo(context.journal, context.dir);
  const nemesis: NemesisContext = { cluster, proxies: undo.deps.proxies, undo, log, database };
  const notes: string[] = [];
  try {
    await ensureProxiesClean(undo.deps.proxies, describedProxies(description), true);
    for (const member of cluster.memberNames)
      if ((await cluster.memberState(member)) !== 'running')
        throw new HarnessError('KAFKA_MEMBER_DOWN', `cluster member ${member} is not running at the start of the run`);
    await createTopic(description, undo, database, input.partitions);
    await undo.during(() => createTables(context, undo, input.settings));
    const trafficStarted = Date.now();
    const { signal } = context;
    await awaitAssigned(description, database, input.partitions, signal);
    const broken = new Set(input.broken);
    const producer = await SourceProducer.open(description, database, input.partitions);
    const acknowledged: number[] = [];
    const faults: string[] = [];
    const windows: { fault: Fault; window: FaultWindow }[] = [];
    let target: { consumer: string; partitions: number[] } | undefined;
    let healStarted = 0;
    try {
      const size = Math.ceil(input.messages / input.chunks);
      for (let chunk = 0; chunk < input.chunks; chunk++) {
        signal?.throwIfAborted();
        if (chunk === input.faultAfterChunk) {
          const held = await assignments(description, database);
          const consumers = [...held.entries()].filter(([, partitions]) => partitions.length > 0);
          const picked = consumers[input.pick % Math.max(1, consumers.length)];
          target = picked === undefined ? undefined : { consumer: picked[0], partitions: picked[1] };
          const chosen = engineFaults(input.fault, description, target?.consumer ?? '', input.pick);
          if (aimsAtConsumer(input.fault) && target === undefined)
            notes.push('no replica held a partition when the fault was due');
          else
            for (const fault of chosen) {
              windows.push({ fault, window: await fault.apply(nemesis) });
              faults.push(fault.toString());
            }
        }
        const ids = Array.from({ length: size }, (_, k) => chunk * size + k + 1).filter((id) => id <= input.messages);
        acknowledged.push(...(await producer.send(ids, broken)).acknowledged);
        await delay(CHUNK_PAUSE_MS, undefined, { signal });
      }
      const appliedAt = windows[0]?.window.appliedAt ?? Date.now();
      await delay(Math.max(0, appliedAt + input.holdMs - Date.now()), undefined, { signal });
    } finally {
      healStarted = Date.now();
      for (const { fault, window } of [...windows].reverse()) await fault.heal(nemesis, window);
      await producer.close();
    }
    const trafficMs = healStarted - trafficStarted;
    const { topic, drained } = await settleTopic(description, database, input.settings, signal);
    const healMs = Date.now() - healStarted;
    const checkStarted = Date.now();
    const observation: EngineObservation = {
      topic,
      acknowledged,
      ...(await observe(context, input.settings, drained)),
    };
    const check = checkEngineRun(observation, expectedRow, owedBy(input.settings));
    const fired = faultFired(windows, target, input, notes);
    return {
      check,
      observation,
      fired,
      notes,
      faults,
      timings: { trafficMs, healMs, checkMs: Date.now() - checkStarted },
    };
  } finally {
    await undo.stop('the Kafka engine run ended');
  }
}

/** Every replica's target, Kafka table and view, in the run's database (recorded per replica before it is made). */
async function createTables(context: EngineRunContext, undo: RunUndo, settings: EngineSettings): Promise<void> {
  const { database } = context;
  const description = context.cluster.description;
  await Promise.all(
    replicasOf(description).map(async (replica) => {
      const client = clientOf(description, replica);
      try {
        await undo.do(
          { kind: 'database', replica: replica.name, database },
          () => client.command({ query: createDatabaseDdl(database) }),
          databaseTaken,
        );
        for (const query of [
          targetTableDdl(database, context.dedupOff, context.setup !== 'local-target'),
          kafkaTableDdl(
            { database, topic: database, group: database, brokers: replicaBootstrap(description, replica.name) },
            settings,
          ),
          viewDdl(database, settings, context.setup !== 'unfiltered-view'),
        ])
          await client.command({ query });
      } finally {
        await client.close();
      }
    }),
  );
}

/**
 * The topic audited and the target drained against it, until the topic stops growing: a send the
 * producer still retried in the background may land after the first audit (measured: a majority
 * of the brokers paused, the rows of offsets the audit had not seen were stored).
 */
async function settleTopic(
  description: ClusterDescription,
  database: string,
  settings: EngineSettings,
  signal: AbortSignal | undefined,
) {
  for (let round = 1; ; round++) {
    const topic = await auditTopic(description, database);
    const parsable = new Set(topic.filter((message) => !message.broken).map((message) => message.id)).size;
    const ends = new Map<number, number>();
    for (const message of topic)
      ends.set(message.partition, Math.max(ends.get(message.partition) ?? 0, message.offset + 1));
    const consumedToEnd = async () => {
      if (settings.offsets !== 'broker') return false;
      const committed = await committedOffsets(description, database, database);
      return [...ends].every(([partition, end]) => (committed.get(partition) ?? 0) >= end);
    };
    const drained = await drain(description, database, parsable, consumedToEnd, signal);
    const size = await topicSize(description, database);
    if (size === topic.length) return { topic, drained };
    if (round === TOPIC_SETTLE_ROUNDS)
      throw new HarnessError(
        'KAFKA_TOPIC_GROWING',
        `the topic ${database} still grew after the producer closed (${topic.length} messages audited, ${size} now)`,
      );
  }
}

/** Until every partition is held by some replica's consumer: traffic before that would meet a group still forming. */
async function awaitAssigned(
  description: ClusterDescription,
  database: string,
  partitions: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const deadline = Date.now() + ASSIGN_DEADLINE_MS;
  for (;;) {
    const held = new Set([...(await assignments(description, database)).values()].flat());
    if (held.size >= partitions) return;
    if (Date.now() > deadline)
      throw new HarnessError(
        'KAFKA_GROUP_NOT_FORMED',
        `the Kafka tables held ${held.size} of the topic's ${partitions} partitions ${ASSIGN_DEADLINE_MS / 1000} s after they were made`,
      );
    await delay(500, undefined, { signal });
  }
}

/**
 * Until every parsable message is stored, or no new one came for the stall bound (true:
 * drained). The bound is shorter once the group committed every partition to its end: nothing is
 * left to consume, so a row still missing then can only have been lost (a block is written before
 * its commit, or, under `kafka_commit_every_batch`, never again).
 */
async function drain(
  description: ClusterDescription,
  database: string,
  parsable: number,
  consumedToEnd: () => Promise<boolean>,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const limit = Date.now() + DRAIN_LIMIT_MS;
  let last = -1;
  let movedAt = Date.now();
  let askedAt = 0;
  for (;;) {
    const stored = await storedIds(description, database);
    if (stored >= parsable) return true;
    if (stored !== last) {
      last = stored;
      movedAt = Date.now();
    }
    const still = Date.now() - movedAt;
    if (still > DRAIN_STALL_MS || Date.now() > limit) return false;
    if (still > CONSUMED_GRACE_MS && Date.now() - askedAt > CONSUMED_GRACE_MS / 3) {
      askedAt = Date.now();
      if (await consumedToEnd().catch(() => false)) return false;
    }
    await delay(500, undefined, { signal });
  }
}

/**
 * The target as the shards hold it (each synced first), every replica's count, and the group's
 * commits. The views are dropped first on every replica (a drop waits for a block being written):
 * the engine goes on re-consuming and writing after the drain, and two replicas of a shard counted
 * a moment apart would differ by what it wrote in between (measured: 2,734 and 2,756 rows).
 */
async function observe(context: EngineRunContext, settings: EngineSettings, drained: boolean) {
  const { database } = context;
  const description = context.cluster.description;
  await Promise.all(
    replicasOf(description).map(async (replica) => {
      const client = clientOf(description, replica);
      try {
        await client.command({ query: `DROP TABLE IF EXISTS ${database}.events_kafka_mv SYNC` });
      } finally {
        await client.close();
      }
    }),
  );
  const stored: StoredRow[] = [];
  const replicaCounts: { shard: string; replica: string; rows: number }[] = [];
  for (const shard of description.shards) {
    for (const [index, replica] of shard.replicas.entries()) {
      const client = clientOf(description, replica);
      try {
        const engine = await queryValue<string>(
          client,
          `SELECT engine FROM system.tables WHERE database = '${database}' AND name = 'events_rep'`,
        );
        if (engine.startsWith('Replicated'))
          await client.command({
            query: `SYSTEM SYNC REPLICA ${database}.events_rep`,
            clickhouse_settings: { receive_timeout: SYNC_DEADLINE_S },
          });
        replicaCounts.push({
          shard: shard.name,
          replica: replica.name,
          rows: Number(await queryValue<string>(client, `SELECT count() FROM ${database}.events_rep`)),
        });
        if (index === 0)
          for (const row of await queryRows<Record<string, string | number>>(
            client,
            `${selectRow} FROM ${database}.events_rep`,
          ))
            stored.push({
              values: Object.fromEntries(SOURCE_COLUMNS.map(({ name }) => [name, String(row[name])])),
              partition: Number(row['kafka_partition']),
              offset: Number(row['kafka_offset']),
            });
      } finally {
        await client.close();
      }
    }
  }
  const committed = settings.offsets === 'broker' ? await committedOffsets(description, database, database) : undefined;
  return { stored, replicaCounts, committed, drained };
}

/**
 * The fault counts when each part of it acted (a member seen stopped; a toxic's links carried
 * bytes while it was in force, by the proxy's counters) and it met a consume: the consumer it took
 * held partitions when it was applied and messages were produced to them after that, or, for a
 * broker, some consumer did.
 */
function faultFired(
  windows: readonly { window: FaultWindow }[],
  target: { consumer: string; partitions: number[] } | undefined,
  input: EngineRunInput,
  notes: string[],
): boolean {
  if (windows.length === 0) return false;
  for (const { window } of windows) {
    if (window.verified === false) {
      notes.push(`${window.description}: not seen in force`);
      return false;
    }
    if (window.links !== undefined && window.linksAfterHeal !== undefined) {
      const carried = window.targets.some(
        (proxy) => (window.linksAfterHeal?.received[proxy] ?? 0) > (window.links?.received[proxy] ?? 0),
      );
      if (!carried) {
        notes.push(`${window.description}: its links carried nothing while it was in force`);
        return false;
      }
    }
  }
  if (aimsAtConsumer(input.fault) && (target === undefined || target.partitions.length === 0)) {
    notes.push('the fault took a replica that held no partition');
    return false;
  }
  if (input.faultAfterChunk >= input.chunks) {
    notes.push('nothing was produced while the fault was in force');
    return false;
  }
  return true;
}
