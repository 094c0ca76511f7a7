import type { ReplicaDescription } from '../../harness/cluster/index.ts';
import { replicatedTables, withDirectClient } from './direct-client.ts';
import type { Fault, FaultWindow, NemesisContext } from './fault.ts';
import type { FaultType } from '../../harness/flow/history/index.ts';
import type { FaultUndo } from './run-undo.ts';

/**
 * Server errors on every replica's tables of the run's database, each one the seed calls
 * unclassified (a sink retries it within `max_insert_attempts`, then gives up). Every fault is
 * applied on every replica directly, bypassing the client proxies, each change recorded in the
 * run's undo journal first; `heal` undoes exactly the recorded changes and is safe to call
 * twice. A read-only table (Keeper session lost) is not one of them: 26.7 holds such an INSERT
 * in its own Keeper retries (`insert_keeper_max_retries` 20, backoff to 10 s: 142 s measured)
 * before it answers TABLE_IS_READ_ONLY, so a sink meets a timeout, which the seed calls
 * transient — `keeper-faults` covers that path.
 */
export type ServerErrorType = Extract<
  FaultType,
  'too_many_parts' | 'not_enough_space' | 'table_detached' | 'constraint_violated' | 'part_writer_failpoint'
>;

abstract class ServerErrorFault implements Fault {
  abstract readonly type: ServerErrorType;
  /** The ClickHouse code every INSERT is answered while the fault is in force (measured on 26.7). */
  abstract readonly serverCode: string;
  readonly effect = 'error';
  private undo: FaultUndo | undefined;

  constructor(protected readonly replicas: readonly ReplicaDescription[]) {}

  get targets(): readonly string[] {
    return this.replicas.map((replica) => replica.name);
  }

  async apply(context: NemesisContext): Promise<FaultWindow> {
    const appliedAt = Date.now();
    const own = (this.undo = context.undo.fault());
    await own.applying(() => this.refuse(context, own));
    context.log.debug({ fault: this.type, replicas: this.targets }, 'run tables altered');
    return {
      type: this.type,
      description: this.toString(),
      targets: this.targets,
      appliedAt,
      serverCode: this.serverCode,
    };
  }

  /** Undoes exactly what `refuse` recorded, on the replicas and tables where it was done. */
  async heal(_context: NemesisContext, window: FaultWindow): Promise<void> {
    await this.undo?.undo();
    window.healedAt ??= Date.now();
  }

  toString(): string {
    return `${this.type}(${this.targets.length} replicas)`;
  }

  /** Makes every replica refuse INSERTs, recording each change in `undo` before making it. */
  protected abstract refuse(context: NemesisContext, undo: FaultUndo): Promise<void>;

  /** Changes one setting of every replicated table of the run's database, on every replica. */
  protected async setOnEveryTable(
    context: NemesisContext,
    undo: FaultUndo,
    setting: string,
    value: string | number,
  ): Promise<void> {
    await Promise.all(
      this.replicas.map((replica) =>
        withDirectClient(context, replica, async (client) => {
          for (const table of await replicatedTables(client, context.database))
            await undo.do(
              { kind: 'table-setting', replica: replica.name, database: context.database, table, setting },
              () =>
                client.command({
                  query: `ALTER TABLE \`${context.database}\`.\`${table}\` MODIFY SETTING ${setting} = ${value}`,
                }),
            );
        }),
      ),
    );
  }
}

/** `parts_to_throw_insert = 0`: TOO_MANY_PARTS (252) even on an empty table. MODIFY SETTING is per replica (measured on 26.7). */
export class TooManyPartsFault extends ServerErrorFault {
  readonly type = 'too_many_parts';
  readonly serverCode = '252';

  protected refuse(context: NemesisContext, undo: FaultUndo): Promise<void> {
    return this.setOnEveryTable(context, undo, 'parts_to_throw_insert', 0);
  }
}

/** A disk-space floor no disk meets: NOT_ENOUGH_SPACE (243), the disk-full refusal. */
export class NotEnoughSpaceFault extends ServerErrorFault {
  readonly type = 'not_enough_space';
  readonly serverCode = '243';

  protected refuse(context: NemesisContext, undo: FaultUndo): Promise<void> {
    return this.setOnEveryTable(context, undo, 'min_free_disk_bytes_to_perform_insert', 2 ** 50);
  }
}

/**
 * The table gone while the sink runs: DETACH on every replica (UNKNOWN_TABLE, 60), ATTACH at the
 * heal. It is what a sink sees of a table dropped and re-created, without erasing the rows the
 * run already wrote (a DROP would take them, and only the operator who dropped them could say
 * which rows that excused).
 */
export class TableDetachedFault extends ServerErrorFault {
  readonly type = 'table_detached';
  readonly serverCode = '60';

  protected async refuse(context: NemesisContext, undo: FaultUndo): Promise<void> {
    const [first] = this.replicas;
    if (first === undefined) return;
    const tables = await withDirectClient(context, first, (client) => replicatedTables(client, context.database));
    await Promise.all(
      this.replicas.map((replica) =>
        withDirectClient(context, replica, async (client) => {
          for (const table of tables)
            await undo.do({ kind: 'table-detached', replica: replica.name, database: context.database, table }, () =>
              client.command({ query: `DETACH TABLE \`${context.database}\`.\`${table}\` SYNC` }),
            );
        }),
      ),
    );
  }
}

const REFUSING_CONSTRAINT = 'chaos_refuses_every_row';

/**
 * A table constraint no row meets (`CHECK 0`): VIOLATED_CONSTRAINT (469), nothing written — an
 * operator's schema change that refuses the stream's rows. Unlike a setting, a constraint is
 * replicated metadata: it is altered on one replica per shard (concurrent ALTERs of the same
 * table conflict) and waited for on every replica (`alter_sync = 2`).
 */
export class ConstraintViolatedFault extends ServerErrorFault {
  readonly type = 'constraint_violated';
  readonly serverCode = '469';

  constructor(
    replicas: readonly ReplicaDescription[],
    private readonly onePerShard: readonly ReplicaDescription[],
  ) {
    super(replicas);
  }

  protected async refuse(context: NemesisContext, undo: FaultUndo): Promise<void> {
    for (const replica of this.onePerShard)
      await withDirectClient(context, replica, async (client) => {
        for (const table of await replicatedTables(client, context.database))
          await undo.do(
            {
              kind: 'constraint',
              replica: replica.name,
              database: context.database,
              table,
              constraint: REFUSING_CONSTRAINT,
            },
            () =>
              client.command({
                query: `ALTER TABLE \`${context.database}\`.\`${table}\` ADD CONSTRAINT IF NOT EXISTS ${REFUSING_CONSTRAINT} CHECK 0`,
                clickhouse_settings: { alter_sync: '2' },
              }),
          );
      });
  }
}

const PART_WRITER_FAILPOINT = 'compact_part_writer_fail_in_add_streams';

/**
 * ClickHouse's own fault injection: the failpoint that fails every new compact part's writer
 * (FAULT_INJECTED, 710; small INSERTs write compact parts, measured on 26.7, and nothing is
 * written). It is node-wide — a merge or a log flush meanwhile fails too and is retried by the
 * server — which is why it is held only for one episode.
 */
export class PartWriterFailpointFault extends ServerErrorFault {
  readonly type = 'part_writer_failpoint';
  readonly serverCode = '710';

  protected async refuse(context: NemesisContext, undo: FaultUndo): Promise<void> {
    await Promise.all(
      this.replicas.map((replica) =>
        withDirectClient(context, replica, (client) =>
          undo.do({ kind: 'failpoint', replica: replica.name, failpoint: PART_WRITER_FAILPOINT }, () =>
            client.command({ query: `SYSTEM ENABLE FAILPOINT ${PART_WRITER_FAILPOINT}` }),
          ),
        ),
      ),
    );
  }
}

export const tooManyParts = (replicas: readonly ReplicaDescription[]) => new TooManyPartsFault(replicas);
export const notEnoughSpace = (replicas: readonly ReplicaDescription[]) => new NotEnoughSpaceFault(replicas);
export const tableDetached = (replicas: readonly ReplicaDescription[]) => new TableDetachedFault(replicas);
export const constraintViolated = (shards: readonly (readonly ReplicaDescription[])[]) =>
  new ConstraintViolatedFault(
    shards.flat(),
    shards.flatMap((replicas) => replicas.slice(0, 1)),
  );
export const partWriterFailpoint = (replicas: readonly ReplicaDescription[]) => new PartWriterFailpointFault(replicas);
