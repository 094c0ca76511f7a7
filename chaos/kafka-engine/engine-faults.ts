import { setTimeout as delay } from 'node:timers/promises';
import fc from 'fast-check';
import {
  type ClusterDescription,
  harnessClient,
  queryRows,
  queryValue,
  type ReplicaDescription,
} from '../../harness/cluster/index.ts';
import {
  brokerStop,
  type Fault,
  type FaultUndo,
  type FaultWindow,
  type NemesisContext,
  keeperLinkCut,
  latencyFault,
  proxyDown,
  replicaKill,
  requestLatencyFault,
  resetPeerFault,
} from '../nemeses/index.ts';
import { assignments } from './engine-observe.ts';
import { type EngineSettings, kafkaTableDdl } from './engine-settings.ts';
import { committedOffsets, replicaBootstrap } from './engine-topic.ts';

/**
 * A fault of the Kafka engine's scenarios, as data (a run's input). A replica's faults aim at a
 * replica whose consumer holds partitions when the fault is applied (`pick` chooses among them);
 * a broker's at `pick` among the brokers.
 */
export type EngineFaultSpec =
  | { readonly kind: 'broker-link'; readonly how: 'proxy_down' | 'latency' | 'reset_peer'; readonly ms: number }
  | { readonly kind: 'broker-process'; readonly how: 'kill' | 'pause'; readonly majority: boolean }
  /** `write-and-commit`: killed once its consumer wrote a block, while the block's offset commit is still on its way. */
  | { readonly kind: 'replica-kill'; readonly between?: 'write-and-commit' }
  | { readonly kind: 'keeper-link' }
  /** `consumers`: the table made again with the other `kafka_num_consumers`; absent: detached and attached. */
  | { readonly kind: 'rebalance'; readonly how?: 'consumers' };

/** The run's Kafka table on every replica. */
export const KAFKA_TABLE = 'events_kafka';

/** The faults aimed at one consuming replica; broker faults take the brokers. */
export const aimsAtConsumer = (fault: EngineFaultSpec): boolean => fault.kind !== 'broker-process';

export const arbBrokerLink: fc.Arbitrary<EngineFaultSpec> = fc.record({
  kind: fc.constant('broker-link' as const),
  how: fc.constantFrom('proxy_down' as const, 'latency' as const, 'reset_peer' as const),
  ms: fc.integer({ min: 200, max: 1500 }),
});

export const arbBrokerProcess: fc.Arbitrary<EngineFaultSpec> = fc.record({
  kind: fc.constant('broker-process' as const),
  how: fc.constantFrom('kill' as const, 'pause' as const),
  majority: fc.boolean(),
});

export const arbReplicaKill: fc.Arbitrary<EngineFaultSpec> = fc.oneof(
  fc.constant({ kind: 'replica-kill' as const }),
  fc.constant({ kind: 'replica-kill' as const, between: 'write-and-commit' as const }),
);
export const arbKeeperLink: fc.Arbitrary<EngineFaultSpec> = fc.constant({ kind: 'keeper-link' as const });
export const arbRebalance: fc.Arbitrary<EngineFaultSpec> = fc.oneof(
  fc.constant({ kind: 'rebalance' as const }),
  fc.constant({ kind: 'rebalance' as const, how: 'consumers' as const }),
);

/**
 * A consumer group's rebalance mid-stream, as an operator causes one: the consuming replica's
 * Kafka table detached (its consumers leave the group and their partitions move to the other
 * replicas), held, then attached again (it rejoins, and they move once more). Recorded in the
 * undo journal first (`table-detached`: re-attached if still absent); seen in force when the table
 * is gone from `system.tables`.
 */
class KafkaTableDetached implements Fault {
  readonly type = 'table_detached';
  readonly effect = 'blocked';
  private undo: FaultUndo | undefined;

  constructor(private readonly replica: ReplicaDescription) {}

  get targets(): readonly string[] {
    return [this.replica.name];
  }

  async apply(context: NemesisContext): Promise<FaultWindow> {
    const appliedAt = Date.now();
    const own = (this.undo = context.undo.fault());
    const { database } = context;
    const client = harnessClient(this.replica.direct_http, {
      timeoutMs: 30_000,
      credentials: context.cluster.description.credentials,
    });
    try {
      await own.applying(() =>
        own.do({ kind: 'table-detached', replica: this.replica.name, database, table: KAFKA_TABLE }, () =>
          client.command({ query: `DETACH TABLE \`${database}\`.\`${KAFKA_TABLE}\` SYNC` }),
        ),
      );
      const left = await queryValue<string>(
        client,
        `SELECT count() FROM system.tables WHERE database = '${database}' AND name = '${KAFKA_TABLE}'`,
      );
      return {
        type: this.type,
        description: this.toString(),
        targets: this.targets,
        appliedAt,
        verified: Number(left) === 0,
      };
    } finally {
      await client.close();
    }
  }

  async heal(_context: NemesisContext, window: FaultWindow): Promise<void> {
    await this.undo?.undo();
    window.healedAt ??= Date.now();
  }

  toString(): string {
    return `detach(${this.replica.name}.${KAFKA_TABLE})`;
  }
}

/**
 * A consumer group's rebalance as an operator causes one when changing `kafka_num_consumers`,
 * which a Kafka table cannot ALTER (26.7: "Alter of type 'MODIFY_SETTING' is not supported by
 * storage Kafka"): the consuming replica's table dropped and made again with the other number, its
 * view left in place (a view follows its source by name). The group's committed offsets are where
 * the new consumers start, so only broker-kept offsets are asked this; the table is the run's, so
 * the run's database going is its undo. Seen in force when the replica's table names the new number.
 */
class KafkaTableRecreated implements Fault {
  readonly type = 'table_detached';
  readonly effect = 'blocked';

  constructor(
    private readonly replica: ReplicaDescription,
    private readonly ddl: (database: string) => string,
    private readonly consumers: number,
  ) {}

  get targets(): readonly string[] {
    return [this.replica.name];
  }

  async apply(context: NemesisContext): Promise<FaultWindow> {
    const appliedAt = Date.now();
    const { database } = context;
    const client = harnessClient(this.replica.direct_http, {
      timeoutMs: 30_000,
      credentials: context.cluster.description.credentials,
    });
    try {
      await client.command({ query: `DROP TABLE \`${database}\`.\`${KAFKA_TABLE}\` SYNC` });
      await client.command({ query: this.ddl(database) });
      const made = await queryValue<string>(
        client,
        `SELECT create_table_query FROM system.tables WHERE database = '${database}' AND name = '${KAFKA_TABLE}'`,
      );
      return {
        type: this.type,
        description: this.toString(),
        targets: this.targets,
        appliedAt,
        verified: String(made).includes(`kafka_num_consumers = ${this.consumers}`),
      };
    } finally {
      await client.close();
    }
  }

  async heal(_context: NemesisContext, window: FaultWindow): Promise<void> {
    window.healedAt ??= Date.now();
  }

  toString(): string {
    return `recreate(${this.replica.name}.${KAFKA_TABLE}, kafka_num_consumers = ${this.consumers})`;
  }
}

/** How late the consuming replica's requests reach the brokers: an offset commit lands at least this long after its block. */
const COMMIT_DELAY_MS = 1_500;
/** How long the kill waits for the consumer's next block before it kills anyway. */
const BLOCK_WAIT_MS = 15_000;

/**
 * A consuming replica killed between a block's write and its offset commit, on purpose: its requests
 * to the brokers delayed (a commit reaches the broker COMMIT_DELAY_MS after its block), the highest offset it
 * stored per partition it holds watched, and the replica killed as soon as that grows. Whether the
 * kill landed in the window is read, not assumed: the group's committed offsets right after it,
 * against what the replica had stored (`toString` says which, once applied). Only where the group
 * keeps its offsets in the broker, the one place they can be read on the embedded engine.
 */
class KillBetweenWriteAndCommit implements Fault {
  readonly type = 'replica_kill';
  readonly effect = 'blocked';
  private readonly slow: Fault;
  private readonly kill: Fault;
  private readonly cut: Fault;
  private slowWindow: FaultWindow | undefined;
  private killWindow: FaultWindow | undefined;
  private cutWindow: FaultWindow | undefined;
  private seen = 'not applied';

  constructor(
    private readonly replica: ReplicaDescription,
    links: readonly string[],
  ) {
    this.slow = requestLatencyFault([...links], COMMIT_DELAY_MS);
    this.kill = replicaKill(replica.name);
    this.cut = proxyDown([...links]);
  }

  get targets(): readonly string[] {
    return [this.replica.name];
  }

  async apply(context: NemesisContext): Promise<FaultWindow> {
    const appliedAt = Date.now();
    const { database } = context;
    const description = context.cluster.description;
    const held = (await assignments(description, database)).get(this.replica.name) ?? [];
    const client = harnessClient(this.replica.direct_http, { timeoutMs: 5_000, credentials: description.credentials });
    const stored = async () =>
      new Map(
        held.length === 0
          ? []
          : (
              await queryRows<{ p: number; o: string }>(
                client,
                `SELECT kafka_partition AS p, max(kafka_offset) AS o FROM \`${database}\`.events_rep WHERE kafka_partition IN (${held.join(',')}) GROUP BY p`,
              )
            ).map((row) => [Number(row.p), Number(row.o)] as const),
      );
    try {
      this.slowWindow = await this.slow.apply(context);
      const before = await stored();
      const grew = (now: Map<number, number>) =>
        [...now].some(([partition, offset]) => offset > (before.get(partition) ?? -1));
      let after = before;
      for (const deadline = Date.now() + BLOCK_WAIT_MS; Date.now() < deadline && !grew(after);) {
        await delay(20);
        after = await stored();
      }
      this.killWindow = await this.kill.apply(context);
      // The delayed commit is still in the proxy's hands: its links go down before it is passed
      // on, or it would land after the kill (measured: a kill seen between write and commit, then
      // no message consumed twice).
      this.cutWindow = await this.cut.apply(context);
      const committed = await committedOffsets(description, database, database);
      const inWindow = [...after].filter(
        ([partition, offset]) => offset > (before.get(partition) ?? -1) && (committed.get(partition) ?? 0) <= offset,
      );
      this.seen =
        inWindow.length > 0
          ? `between write and commit: yes (${inWindow.map(([partition, offset]) => `partition ${partition} stored to offset ${offset}, committed ${committed.get(partition) ?? 0}`).join('; ')})`
          : !grew(after)
            ? 'between write and commit: no (no new block in time)'
            : 'between write and commit: no (its commit had landed)';
      return {
        type: this.type,
        description: this.toString(),
        targets: this.targets,
        appliedAt,
        verified: this.killWindow.verified === true,
      };
    } finally {
      await client.close();
    }
  }

  async heal(context: NemesisContext, window: FaultWindow): Promise<void> {
    try {
      if (this.cutWindow !== undefined) await this.cut.heal(context, this.cutWindow);
    } finally {
      try {
        if (this.killWindow !== undefined) await this.kill.heal(context, this.killWindow);
      } finally {
        if (this.slowWindow !== undefined) await this.slow.heal(context, this.slowWindow);
      }
    }
    window.healedAt ??= Date.now();
  }

  toString(): string {
    return `kill(${this.replica.name}) after a block, its commit slowed by ${COMMIT_DELAY_MS} ms; ${this.seen}`;
  }
}

/** The replica's own proxies to every broker: what a fault on its Kafka links acts on. */
const kafkaLinks = (description: ClusterDescription, replica: string): string[] =>
  (description.kafka ?? []).map((broker) => broker.proxies[replica] ?? '').filter((proxy) => proxy !== '');

/**
 * The faults that make one spec real: one per stopped broker, one otherwise. `consumer` is the
 * replica a consumer-aimed fault takes; `broker` the first broker a process fault takes (a
 * majority takes the next ones too, in the description's order).
 */
export function engineFaults(
  spec: EngineFaultSpec,
  description: ClusterDescription,
  consumer: string,
  broker: number,
  settings: EngineSettings,
): Fault[] {
  switch (spec.kind) {
    case 'broker-link': {
      const links = kafkaLinks(description, consumer);
      if (spec.how === 'proxy_down') return [proxyDown(links)];
      if (spec.how === 'latency') return [latencyFault(links, spec.ms)];
      return [resetPeerFault(links, 0)];
    }
    case 'broker-process': {
      const brokers = (description.kafka ?? []).map((entry) => entry.name);
      const count = spec.majority ? Math.floor(brokers.length / 2) + 1 : 1;
      return Array.from({ length: count }, (_, k) => brokers[(broker + k) % brokers.length] ?? '').map((name) =>
        brokerStop(name, spec.how),
      );
    }
    case 'replica-kill': {
      const replica = replicaOf(description, consumer);
      if (spec.between === undefined || settings.offsets !== 'broker' || replica === undefined)
        return [replicaKill(consumer)];
      return [new KillBetweenWriteAndCommit(replica, kafkaLinks(description, consumer))];
    }
    case 'keeper-link':
      return [keeperLinkCut(replicaOf(description, consumer)?.proxies.keepers ?? [], `${consumer}'s Keeper links`)];
    case 'rebalance': {
      const replica = replicaOf(description, consumer);
      if (replica === undefined) return [];
      if (!recreates(spec, settings)) return [new KafkaTableDetached(replica)];
      const changed: EngineSettings = { ...settings, numConsumers: settings.numConsumers === 1 ? 2 : 1 };
      const ddl = (database: string) =>
        kafkaTableDdl(
          { database, topic: database, group: database, brokers: replicaBootstrap(description, replica.name) },
          changed,
        );
      return [new KafkaTableRecreated(replica, ddl, changed.numConsumers)];
    }
  }
}

const replicaOf = (description: ClusterDescription, name: string): ReplicaDescription | undefined =>
  description.shards.flatMap((shard) => shard.replicas).find((entry) => entry.name === name);

/** One line for the report. */
export function describeEngineFault(spec: EngineFaultSpec): string {
  switch (spec.kind) {
    case 'broker-link':
      return `a consuming replica's broker links: ${spec.how}${spec.how === 'latency' ? ` ${spec.ms} ms` : ''}`;
    case 'broker-process':
      return `${spec.how} ${spec.majority ? 'a majority of the brokers' : 'one broker'}`;
    case 'replica-kill':
      return spec.between === undefined
        ? 'kill a consuming replica'
        : 'kill a consuming replica between a block it wrote and its offset commit (broker-kept offsets; a kill at a drawn moment otherwise)';
    case 'keeper-link':
      return "cut a consuming replica's Keeper links";
    case 'rebalance':
      return spec.how === 'consumers'
        ? "make a consuming replica's Kafka table again with the other kafka_num_consumers (detach and attach where offsets are in Keeper): the group rebalances"
        : "detach a consuming replica's Kafka table, then attach it: the group rebalances twice";
  }
}

/**
 * Whether a rebalance makes the table again: asked for, and the group's offsets in the broker (a
 * StorageKafka2 table's drop takes its replica's part of the Keeper offsets with it).
 */
const recreates = (spec: EngineFaultSpec, settings: EngineSettings): boolean =>
  spec.kind === 'rebalance' && spec.how === 'consumers' && settings.offsets === 'broker';
