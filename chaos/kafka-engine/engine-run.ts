import { setTimeout as delay } from 'node:timers/promises';
import { HarnessError } from '../../harness/base/index.ts';
import { createDatabaseDdl } from '../../harness/clickhouse/index.ts';
import {
  checkEngineRun,
  type EngineCheck,
  type EngineObservation,
  type TopicMessage,
} from '../../properties/checkers/index.ts';
import {
  describedProxies,
  ensureProxiesClean,
  type Fault,
  type FaultWindow,
  type NemesisContext,
  RunUndo,
} from '../nemeses/index.ts';
import { awaitWritableReplicas, databaseTaken, type PathRunContext } from '../executor/index.ts';
import { KillBetweenWriteAndCommit } from './consumer-faults.ts';
import { aimsAtConsumer, type EngineFaultSpec, engineFaults } from './engine-faults.ts';
import {
  assignments,
  awaitAssigned,
  clientOf,
  observe,
  type ReadOnlyRefusals,
  readOnlyRefusals,
  replicasOf,
  settleTopic,
} from './engine-observe.ts';
import { type EngineSettings, kafkaTableDdl, owedBy, targetTableDdl, viewDdl } from './engine-settings.ts';
import { type AcknowledgedAt, createTopic, replicaBootstrap, SourceProducer } from './engine-topic.ts';
import { expectedRow } from './source.ts';

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
export interface EngineRunContext extends PathRunContext {
  /** A deliberately misconfigured setup (the checkers' self-test); undefined: as a user should set it up. */
  readonly setup?: SetupMistake | undefined;
  /** The run counts only when its kill landed between a block's write and its commit (the scenario's case in this profile). */
  readonly requireCommitWindow?: boolean | undefined;
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

const CHUNK_PAUSE_MS = 150;
/** How long after the heal every replica may take to be writable again before the run is an infra-error. */
const WRITABLE_TIMEOUT_MS = 90_000;

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
    const acknowledgedAt: AcknowledgedAt[] = [];
    const faults: string[] = [];
    const windows: { fault: Fault; window: FaultWindow }[] = [];
    let target: { consumer: string; partitions: number[] } | undefined;
    let refusedBefore: ReadOnlyRefusals | undefined;
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
          const chosen = engineFaults(input.fault, description, target?.consumer ?? '', input.pick, input.settings);
          if (aimsAtConsumer(input.fault) && target === undefined)
            notes.push('no replica held a partition when the fault was due');
          else {
            if (input.fault.kind === 'keeper-link' && target !== undefined)
              refusedBefore = await readOnlyRefusals(description, target.consumer);
            for (const fault of chosen) {
              windows.push({ fault, window: await fault.apply(nemesis) });
              faults.push(fault.toString());
            }
          }
        }
        const ids = Array.from({ length: size }, (_, k) => chunk * size + k + 1).filter((id) => id <= input.messages);
        const sent = await producer.send(ids, broken);
        acknowledged.push(...sent.acknowledged);
        acknowledgedAt.push(...sent.offsets);
        await delay(CHUNK_PAUSE_MS, undefined, { signal });
      }
      const appliedAt = windows[0]?.window.appliedAt ?? Date.now();
      await delay(Math.max(0, appliedAt + input.holdMs - Date.now()), undefined, { signal });
    } finally {
      healStarted = Date.now();
      try {
        for (const { fault, window } of [...windows].reverse()) await fault.heal(nemesis, window);
      } finally {
        // A heal that fails leaves the rest to the run's undo, never a producer still connected.
        await producer.close();
      }
    }
    const trafficMs = healStarted - trafficStarted;
    // As for the sinks: a replica whose Keeper link was cut takes seconds to get its session back,
    // and until then its tables refuse even SYSTEM SYNC REPLICA (TABLE_IS_READ_ONLY).
    await awaitWritableReplicas(cluster, database, WRITABLE_TIMEOUT_MS);
    const viewRefused =
      refusedBefore !== undefined && target !== undefined
        ? refusedSince(refusedBefore, await readOnlyRefusals(description, target.consumer), database)
        : undefined;
    const { topic, drained } = await settleTopic(description, database, input.settings, signal);
    const healMs = Date.now() - healStarted;
    const checkStarted = Date.now();
    const observation: EngineObservation = {
      topic,
      acknowledged,
      ...(await observe(description, database, input.settings, drained)),
    };
    const check = checkEngineRun(observation, expectedRow, owedBy(input.settings));
    notes.push(...missingAcknowledged(topic, acknowledgedAt));
    const commitWindow = windows
      .map(({ fault }) => fault)
      .find((fault) => fault instanceof KillBetweenWriteAndCommit)?.landedInWindow;
    const fired = faultFired(windows, target, input, notes, {
      viewRefused,
      commitWindow,
      requireCommitWindow: context.requireCommitWindow,
    });
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
 * For an acknowledged message the topic lacks, what the brokers' answer said against what the
 * topic holds: past the partition's end (the log lost records it had acknowledged), or an offset
 * that holds another message (the acknowledgement was not for these records). Which of the two
 * tells whose loss it is; the checker's verdict does not depend on it.
 */
export function missingAcknowledged(
  topic: readonly TopicMessage[],
  acknowledgedAt: readonly AcknowledgedAt[],
): string[] {
  const present = new Set(topic.map((message) => message.id));
  const held = new Map(topic.map((message) => [`${message.partition}/${message.offset}`, message.id]));
  const end = new Map<number, number>();
  for (const message of topic)
    end.set(message.partition, Math.max(end.get(message.partition) ?? -1, message.offset + 1));
  return acknowledgedAt.flatMap(({ partition, baseOffset, ids }) => {
    const missing = ids.filter((id) => !present.has(id));
    if (missing.length === 0) return [];
    const there = held.get(`${partition}/${baseOffset}`);
    const what =
      baseOffset >= (end.get(partition) ?? 0)
        ? `the partition ends at offset ${end.get(partition) ?? 0}: the log lost records it had acknowledged`
        : `offset ${baseOffset} holds ${there === undefined ? 'nothing readable' : `id ${there}`}: the acknowledgement was not for these records`;
    return [
      `${missing.length} acknowledged message(s) missing (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}), acknowledged at partition ${partition} offset ${baseOffset}; ${what}`,
    ];
  });
}

/**
 * The fault counts when each part of it acted (a member seen stopped; a toxic's links carried
 * bytes while it was in force, by the proxy's counters) and it met a consume: the consumer it took
 * held partitions when it was applied and messages were produced to them after that, or, for a
 * broker, some consumer did. A Keeper cut counts only when the view's INSERT met it
 * (`viewRefused`: the replica refused a write into the target as read-only meanwhile); links that
 * carried bytes show the cut acted on Keeper, not that the path's write did. Where the profile
 * requires a kill between a block's write and its commit, only a kill that landed there counts
 * (`commitWindow`, read back); elsewhere an aimed kill that missed is a kill mid-stream like any
 * other, and its fault line says it missed.
 */
export function faultFired(
  windows: readonly { window: FaultWindow }[],
  target: { consumer: string; partitions: number[] } | undefined,
  input: Pick<EngineRunInput, 'fault' | 'faultAfterChunk' | 'chunks'>,
  notes: string[],
  evidence: {
    readonly viewRefused?: number | undefined;
    readonly commitWindow?: boolean | undefined;
    readonly requireCommitWindow?: boolean | undefined;
  } = {},
): boolean {
  const { viewRefused, commitWindow, requireCommitWindow } = evidence;
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
  if (input.fault.kind === 'keeper-link') {
    if ((viewRefused ?? 0) === 0) {
      notes.push("the view's INSERT never met the cut: the replica refused no write into the target as read-only");
      return false;
    }
    notes.push(`the view's INSERT into the target was refused ${viewRefused} time(s) as read-only`);
  }
  if (requireCommitWindow === true && commitWindow !== true) {
    notes.push(
      commitWindow === false
        ? "the kill missed the window between a block's write and its commit, which this profile requires"
        : "this profile requires a kill between a block's write and its commit, and this one was not aimed there",
    );
    return false;
  }
  return true;
}

/**
 * The read-only refusals a replica made between two readings, when its last one names the run's
 * target (its replica path holds the database and `events_rep`); 0 otherwise.
 */
export function refusedSince(before: ReadOnlyRefusals, after: ReadOnlyRefusals, database: string): number {
  const added = after.count - before.count;
  return added > 0 && after.last.includes(`/${database}/events_rep/`) ? added : 0;
}
