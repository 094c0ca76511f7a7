import { setTimeout as delay } from 'node:timers/promises';
import { type LoadId, type PublishOperation, publishStatement } from './publication.ts';

/** One row of a load: its load (the partition), its id within the load, its payload. */
export interface StagedRow {
  readonly load: LoadId;
  readonly id: number;
  readonly payload: string;
}

/** A load for several production tables: per table, its rows in the batches they arrive in. */
export interface StagedLoad {
  readonly load: LoadId;
  readonly tables: readonly LoadPart[];
}

/** One table's part of a load. */
export interface LoadPart {
  readonly table: string;
  readonly batches: readonly (readonly StagedRow[])[];
}

/** What the loader sends: the statements it runs and the rows it inserts, over one connection. */
export interface LoaderConnection {
  command(query: string): Promise<void>;
  /** Rows into `table`, with ClickHouse's insert dedup off (a retried staging load is truncated first). */
  insert(table: string, rows: readonly StagedRow[]): Promise<void>;
  count(query: string): Promise<number>;
}

export type LoaderStepKind = 'stage-truncate' | 'stage-insert' | 'stage-verify' | 'publish' | 'clean';

/** One statement of a load, as the observer sees it. */
export interface LoaderStep {
  readonly kind: LoaderStepKind;
  readonly load: LoadId;
  readonly table: string;
  /** The attempt of this phase of this table (1 = first). */
  readonly attempt: number;
}

/**
 * The loader's hooks, which never change what it does: `before` runs before the statement is
 * sent (a rig may hold it there), `after` once its outcome is known; `arrival` before each batch
 * of a load is staged (a batch arrives when the source has it).
 */
export interface LoaderObserver {
  before?(step: LoaderStep): Promise<void>;
  after?(step: LoaderStep, error: unknown): Promise<void>;
  arrival?(load: LoadId, table: string, batch: number): Promise<void>;
}

export interface LoaderOptions {
  readonly database: string;
  readonly operation: PublishOperation;
  /** Attempts per phase of one table (staging, then publication) before the load is given up. */
  readonly maxAttempts: number;
  /** The wait before the second attempt of a phase, doubled for each next one (capped at 3 s): a Keeper that is away comes back. */
  readonly retryBackoffMs: number;
  readonly connection: LoaderConnection;
  readonly observer?: LoaderObserver;
}

/**
 * How a load ended: published to every table; refused by the engine (staging and production do
 * not meet the publication's requirements — seed 002 — so no retry can succeed); or given up in a
 * phase. Both of the last say which tables were published before it.
 */
export type LoadOutcome =
  | { readonly outcome: 'published' }
  | {
      readonly outcome: 'refused';
      readonly table: string;
      readonly published: readonly string[];
      /** The server's code and message. */
      readonly error: string;
    }
  | {
      readonly outcome: 'gave-up';
      readonly phase: 'stage' | 'publish';
      readonly table: string;
      readonly published: readonly string[];
      readonly error: string;
    };

export const stagingTable = (table: string) => `${table}_staging`;

/**
 * Seed 002's staged atomic publication. A load is written to `<table>_staging` for every table
 * first, each verified by its count (a staging load that fails or miscounts is truncated and
 * written again: nothing of it has reached production); then every table's partition is
 * switched into production with one metadata-only ALTER; then staging is truncated. A reader of
 * production sees a load whole or not at all, and across tables only the switch's window.
 *
 * A publication whose outcome is unknown (an error, a cut answer) is repeated as it was, never
 * staged again: the ALTER may have committed, and only the same statement is safe to repeat
 * (what that owes per operation: `owedByOperation`).
 */
export class StagedPartitionLoader {
  constructor(private readonly options: LoaderOptions) {}

  async load(load: StagedLoad): Promise<LoadOutcome> {
    for (const part of load.tables) {
      const staged = await this.stage(load.load, part);
      if (staged !== undefined)
        return { outcome: 'gave-up', phase: 'stage', table: part.table, published: [], error: staged };
    }
    const published: string[] = [];
    for (const part of load.tables) {
      const failed = await this.publish(load.load, part);
      if (failed instanceof Refusal) return { outcome: 'refused', table: part.table, published, error: failed.message };
      if (failed !== undefined)
        return { outcome: 'gave-up', phase: 'publish', table: part.table, published, error: failed };
      published.push(part.table);
    }
    for (const { table } of load.tables) await this.clean(load.load, table);
    return { outcome: 'published' };
  }

  /** The table's rows into staging, verified; the last error when every attempt failed. */
  private async stage(load: LoadId, { table, batches }: LoadPart): Promise<string | undefined> {
    const { database, connection } = this.options;
    const staging = stagingTable(table);
    const expected = batches.reduce((sum, batch) => sum + batch.length, 0);
    let lastError = '';
    for (let attempt = 1; attempt <= this.options.maxAttempts; attempt++) {
      await this.backoff(attempt);
      try {
        await this.step({ kind: 'stage-truncate', load, table, attempt }, () =>
          connection.command(`TRUNCATE TABLE ${database}.${staging}`),
        );
        for (const [index, batch] of batches.entries()) {
          // Only the first attempt waits for the source; a retry has every batch at hand.
          if (attempt === 1) await this.options.observer?.arrival?.(load, table, index);
          await this.step({ kind: 'stage-insert', load, table, attempt }, () =>
            connection.insert(`${database}.${staging}`, batch),
          );
        }
        const counted = await this.step({ kind: 'stage-verify', load, table, attempt }, () =>
          connection.count(`SELECT count() FROM ${database}.${staging} WHERE load = ${load}`),
        );
        if (counted === expected) return undefined;
        lastError = `staging holds ${counted} rows of load ${load}, ${expected} were written`;
      } catch (error) {
        lastError = messageOf(error);
      }
    }
    return lastError;
  }

  /** The table's part switched into production; the same statement again while its outcome is unknown. */
  private async publish(load: LoadId, part: LoadPart): Promise<string | Refusal | undefined> {
    const { database, connection, operation } = this.options;
    const { table } = part;
    const statement = publishStatement(operation, database, table, stagingTable(table), load);
    let lastError = '';
    for (let attempt = 1; attempt <= this.options.maxAttempts; attempt++) {
      await this.backoff(attempt);
      try {
        await this.step({ kind: 'publish', load, table, attempt }, () => connection.command(statement));
        return undefined;
      } catch (error) {
        if (REFUSALS.has(codeOf(error))) return new Refusal(`code ${codeOf(error)}: ${messageOf(error)}`);
        lastError = messageOf(error);
      }
    }
    return lastError;
  }

  /** Staging emptied for the next load; a failure here leaves rows the next load's truncate removes. */
  private async clean(load: LoadId, table: string): Promise<void> {
    const { database, connection } = this.options;
    try {
      await this.step({ kind: 'clean', load, table, attempt: 1 }, () =>
        connection.command(`TRUNCATE TABLE ${database}.${stagingTable(table)}`),
      );
    } catch {
      // Nothing of production depends on it: the next staging load begins with a truncate.
    }
  }

  private async backoff(attempt: number): Promise<void> {
    if (attempt > 1) await delay(Math.min(3_000, this.options.retryBackoffMs * 2 ** (attempt - 2)));
  }

  private async step<T>(step: LoaderStep, run: () => Promise<T>): Promise<T> {
    const observer = this.options.observer;
    await observer?.before?.(step);
    try {
      const result = await run();
      await observer?.after?.(step, undefined);
      return result;
    } catch (error) {
      await observer?.after?.(step, error);
      throw error;
    }
  }
}

/**
 * What the engine answers a publication whose tables do not meet its requirements (measured on
 * 26.7): BAD_ARGUMENTS (36: a different partition key or ordering, or a skipping index or
 * projection of the source that the target lacks), INCOMPATIBLE_COLUMNS (122: a different
 * structure), INVALID_PARTITION_VALUE (248: the partition value does not fit the source's key),
 * UNKNOWN_POLICY (478: MOVE between tables of different storage policies). The same statement
 * would be refused again.
 */
const REFUSALS = new Set(['36', '122', '248', '478']);

class Refusal {
  constructor(readonly message: string) {}
}

const codeOf = (error: unknown): string => String((error as { code?: unknown } | null)?.code ?? '');

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
