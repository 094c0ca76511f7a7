import type { ClickHouseClient } from '@clickhouse/client';
import { harnessClient } from '../../harness/clickhouse/client.ts';
import type { ReplicaDescription } from '../../harness/cluster/description.ts';
import type { Fault, FaultWindow, NemesisContext } from './fault.ts';

/**
 * Every replicated table of the run's database refuses INSERTs with TOO_MANY_PARTS (252): the
 * table setting `parts_to_throw_insert = 0`, which refuses even an empty table. A MODIFY
 * SETTING only changes the replica it runs on (measured on 26.7), so it is set on every
 * replica, directly, bypassing the proxies. A server error the seed calls unclassified: a sink
 * retries it within `max_insert_attempts`, then gives up. Heal resets the setting everywhere.
 */
export class TooManyPartsFault implements Fault {
  readonly type = 'too_many_parts';
  readonly effect = 'error';

  constructor(private readonly replicas: readonly ReplicaDescription[]) {}

  get targets(): readonly string[] {
    return this.replicas.map((replica) => replica.name);
  }

  async apply(context: NemesisContext): Promise<FaultWindow> {
    const appliedAt = Date.now();
    await this.onEveryTable(context, 'MODIFY SETTING parts_to_throw_insert = 0');
    return { type: this.type, description: this.toString(), targets: this.targets, appliedAt };
  }

  async heal(context: NemesisContext, window: FaultWindow): Promise<void> {
    await this.onEveryTable(context, 'RESET SETTING parts_to_throw_insert');
    window.healedAt ??= Date.now();
  }

  toString(): string {
    return `too_many_parts(${this.targets.length} replicas)`;
  }

  private async onEveryTable(context: NemesisContext, alteration: string): Promise<void> {
    await Promise.all(
      this.replicas.map(async (replica) => {
        const client = harnessClient(replica.direct_http, {
          timeoutMs: 10_000,
          credentials: context.cluster.description.credentials,
        });
        try {
          for (const table of await replicatedTables(client, context.database))
            await client.command({ query: `ALTER TABLE \`${context.database}\`.\`${table}\` ${alteration}` });
        } finally {
          await client.close();
        }
      }),
    );
    context.log.debug({ alteration, replicas: this.targets }, 'run tables altered');
  }
}

async function replicatedTables(client: ClickHouseClient, database: string): Promise<string[]> {
  const result = await client.query({
    query: "SELECT name FROM system.tables WHERE database = {database:String} AND engine LIKE 'Replicated%MergeTree'",
    query_params: { database },
    format: 'JSONEachRow',
  });
  return (await result.json<{ name: string }>()).map((row) => row.name);
}

export const tooManyParts = (replicas: readonly ReplicaDescription[]) => new TooManyPartsFault(replicas);
