import { setTimeout as delay } from 'node:timers/promises';
import { harnessClient, queryRows, queryValue, type ReplicaDescription } from '../../harness/cluster/index.ts';
import {
  type Fault,
  type FaultUndo,
  type FaultWindow,
  type NemesisContext,
  proxyDown,
  replicaKill,
  requestLatencyFault,
} from '../nemeses/index.ts';
import { assignments } from './engine-observe.ts';
import { committedOffsets } from './engine-topic.ts';

// The faults that act on one consuming replica's Kafka table or process beyond a plain fault of
// the catalogue: a rebalance an operator causes, and a kill aimed between a block and its commit.

/** The run's Kafka table on every replica. */
export const KAFKA_TABLE = 'events_kafka';

/**
 * A consumer group's rebalance mid-stream, as an operator causes one: the consuming replica's
 * Kafka table detached (its consumers leave the group and their partitions move to the other
 * replicas), held, then attached again (it rejoins, and they move once more). Recorded in the
 * undo journal first (`table-detached`: re-attached if still absent); seen in force when the table
 * is gone from `system.tables`.
 */
export class KafkaTableDetached implements Fault {
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
export class KafkaTableRecreated implements Fault {
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
export class KillBetweenWriteAndCommit implements Fault {
  readonly type = 'replica_kill';
  readonly effect = 'blocked';
  private readonly slow: Fault;
  private readonly kill: Fault;
  private readonly cut: Fault;
  private slowWindow: FaultWindow | undefined;
  private killWindow: FaultWindow | undefined;
  private cutWindow: FaultWindow | undefined;
  private seen = 'not applied';
  private hit: boolean | undefined;

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
      this.hit = inWindow.length > 0;
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

  /** Whether the kill landed between a block's write and its commit, as read back; undefined before it was applied. */
  get landedInWindow(): boolean | undefined {
    return this.hit;
  }

  toString(): string {
    return `kill(${this.replica.name}) after a block, its commit slowed by ${COMMIT_DELAY_MS} ms; ${this.seen}`;
  }
}
