import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ClickHouseError, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessClient, queryRows, queryValue } from '../client.ts';
import { createShardedTable } from '../../clickhouse/index.ts';
import type { StartedLocalCluster } from '../local-cluster.ts';
import { ramBaseDir } from '../ram-dir.ts';
import { startEmbeddedCluster } from './start-embedded.ts';

let cluster: StartedLocalCluster;
const clients = new Map<string, ClickHouseClient>();
const client = (name: string): ClickHouseClient => {
  const found = clients.get(name);
  if (!found) throw new Error(`no client for ${name}`);
  return found;
};

async function count(node: string, table = 'chaos.events_rep'): Promise<number> {
  return Number(await queryValue<string>(client(node), `SELECT count() FROM ${table}`));
}

async function syncReplica(node: string, table = 'chaos.events_rep'): Promise<void> {
  await client(node).command({ query: `SYSTEM SYNC REPLICA ${table}`, clickhouse_settings: { receive_timeout: 60 } });
}

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ topology: { shards: 2, replicas: 2, keepers: 1 } });
  for (const shard of cluster.description.shards) {
    for (const replica of shard.replicas) clients.set(replica.name, harnessClient(replica.http));
  }
  await createShardedTable([...clients.values()], {
    database: 'chaos',
    name: 'events',
    columns: 'id String, value UInt64',
    orderBy: 'id',
  });
});

afterAll(async () => {
  await Promise.all([...clients.values()].map((c) => c.close()));
  await cluster?.down();
  // Down removes the members' data in memory with the run directory (ram-dir.ts).
  const ram = ramBaseDir();
  if (cluster !== undefined && ram !== undefined) expect(existsSync(join(ram, cluster.clusterState.runId))).toBe(false);
});

describe('embedded 2x2x1 cluster', () => {
  it("keeps every member's data in memory when the machine has a tmpfs for it", async () => {
    const ram = ramBaseDir();
    if (ram === undefined) return;
    const run = join(ram, cluster.clusterState.runId);
    for (const node of cluster.clusterState.nodes) {
      const disk = await queryValue<string>(client(node.name), "SELECT path FROM system.disks WHERE name = 'default'");
      expect(realpathSync(disk).startsWith(`${run}/`)).toBe(true);
    }
    expect(readdirSync(join(run, 'keepers'))).toEqual(['k1']);
  });

  it("gives its Keeper member a logger: ZooKeeper's warnings land in its log, timed", () => {
    const log = readFileSync(join(cluster.clusterState.dir, 'keepers', 'k1', 'zookeeper.log'), 'utf8');
    expect(log).not.toContain('no-operation (NOP) logger');
    expect(log).toMatch(/^\d\d:\d\d:\d\d\.\d{3} \[[^\]]+\] WARN org\.apache\.zookeeper\./m);
  });

  it('has every replica active in system.replicas, behind its proxies', async () => {
    expect(cluster.description.proxies_enabled).toBe(true);
    for (const [name] of clients) {
      const rows = await queryRows<{
        replica_name: string;
        is_readonly: number;
        active_replicas: number;
        total_replicas: number;
        zookeeper_path: string;
      }>(
        client(name),
        "SELECT replica_name, is_readonly, active_replicas, total_replicas, zookeeper_path FROM system.replicas WHERE database = 'chaos'",
      );
      expect(rows).toEqual([
        {
          replica_name: name,
          is_readonly: 0,
          active_replicas: 2,
          total_replicas: 2,
          zookeeper_path: `/clickhouse/tables/${name.slice(0, 2)}/chaos/events_rep`,
        },
      ]);
    }
  });

  it('fetches an insert on one replica into its sibling', async () => {
    await client('s1r1').insert({
      table: 'chaos.events_rep',
      values: [
        { id: 'fetch-1', value: 1 },
        { id: 'fetch-2', value: 2 },
      ],
      format: 'JSONEachRow',
    });
    await syncReplica('s1r2');
    const rows = await queryRows<{ id: string }>(
      client('s1r2'),
      "SELECT id FROM chaos.events_rep WHERE id LIKE 'fetch-%' ORDER BY id",
    );
    expect(rows.map((row) => row.id)).toEqual(['fetch-1', 'fetch-2']);
    // The other shard is an independent table: nothing arrives there.
    expect(
      Number(await queryValue<string>(client('s2r1'), "SELECT count() FROM chaos.events_rep WHERE id LIKE 'fetch-%'")),
    ).toBe(0);
    expect(
      Number(await queryValue<string>(client('s2r1'), "SELECT count() FROM chaos.events_dist WHERE id LIKE 'fetch-%'")),
    ).toBe(2);
  });

  it('inserts one block once when the same insert_deduplication_token reaches two replicas of a shard', async () => {
    const block = [
      { id: 'dedup-1', value: 1 },
      { id: 'dedup-2', value: 2 },
    ];
    for (const node of ['s2r1', 's2r2']) {
      await client(node).insert({
        table: 'chaos.events_rep',
        values: block,
        format: 'JSONEachRow',
        clickhouse_settings: { insert_deduplication_token: 'token-A' },
      });
    }
    await syncReplica('s2r1');
    await syncReplica('s2r2');
    const dedupCount = "SELECT count() FROM chaos.events_rep WHERE id LIKE 'dedup-%'";
    expect(Number(await queryValue<string>(client('s2r1'), dedupCount))).toBe(2);
    await client('s2r2').insert({
      table: 'chaos.events_rep',
      values: block,
      format: 'JSONEachRow',
      clickhouse_settings: { insert_deduplication_token: 'token-B' },
    });
    await syncReplica('s2r1');
    expect(Number(await queryValue<string>(client('s2r1'), dedupCount))).toBe(4);
  });

  it('catches a replica killed with SIGKILL during inserts up after restart', async () => {
    const before = await count('s1r1');
    let inserted = 0;
    const writer = (async () => {
      for (let i = 0; i < 30; i++) {
        await client('s1r1').insert({
          table: 'chaos.events_rep',
          values: [{ id: `kill-${i}`, value: i }],
          format: 'JSONEachRow',
        });
        inserted += 1;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 150));
    await cluster.kill('s1r2');
    expect(await cluster.memberState('s1r2')).toBe('dead');
    await writer;
    await cluster.start('s1r2');
    await syncReplica('s1r2');
    expect(inserted).toBe(30);
    expect(await count('s1r2')).toBe(before + 30);
    expect(await count('s1r1')).toBe(before + 30);
    // Its system logs work again in the new life (they start empty: a documented backend limit).
    await client('s1r2').command({ query: 'SYSTEM FLUSH LOGS', clickhouse_settings: { receive_timeout: 20 } });
    expect(
      Number(
        await queryValue<string>(client('s1r2'), "SELECT count() FROM system.query_log WHERE query_kind = 'Select'"),
      ),
    ).toBeGreaterThan(0);
  });

  it('refuses inserts while the Keeper is paused and accepts them after it continues', async () => {
    await cluster.pause('k1');
    let failure: unknown;
    try {
      await client('s2r1').insert({
        table: 'chaos.events_rep',
        values: [{ id: 'keeper-paused', value: 1 }],
        format: 'JSONEachRow',
        clickhouse_settings: { insert_keeper_max_retries: '2' },
      });
    } catch (error) {
      failure = error;
    } finally {
      await cluster.resume('k1');
    }
    expect(failure).toBeInstanceOf(ClickHouseError);
    expect((failure as ClickHouseError).type).toMatch(/^(TABLE_IS_READ_ONLY|KEEPER_EXCEPTION)$/);
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await client('s2r1').insert({
          table: 'chaos.events_rep',
          values: [{ id: 'keeper-back', value: 1 }],
          format: 'JSONEachRow',
        });
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    expect(
      Number(await queryValue<string>(client('s2r1'), "SELECT count() FROM chaos.events_rep WHERE id = 'keeper-back'")),
    ).toBe(1);
  });
  it('gives each setting profile its user: a quorum INSERT with a paused sibling answers UNKNOWN_STATUS_OF_INSERT', async () => {
    const users = cluster.description.setting_users ?? {};
    const replica = cluster.description.shards[1]?.replicas[0];
    if (replica === undefined || users.quorum_sequential === undefined) throw new Error('no s2r1 or no profile user');
    const asUser = (user: string) => harnessClient(replica.http, { credentials: { user } });
    const viewless = asUser(users.view_dedup_off ?? '');
    const quorum = asUser(users.quorum_sequential);
    try {
      expect(
        await queryValue<string>(viewless, "SELECT getSetting('deduplicate_blocks_in_dependent_materialized_views')"),
      ).toBe(false);
      const insert = () =>
        quorum.insert({
          table: 'chaos.events_rep',
          values: [{ id: 'quorum-1', value: 1 }],
          format: 'JSONEachRow',
          clickhouse_settings: { insert_deduplication_token: 'quorum-token' },
        });
      await cluster.pause('s2r2');
      let failure: unknown;
      try {
        await insert();
      } catch (error) {
        failure = error;
      } finally {
        await cluster.resume('s2r2');
      }
      // The part is committed on s2r1; only the quorum is unknown (QUORUM_TIMEOUT_MS later).
      expect((failure as ClickHouseError).type).toBe('UNKNOWN_STATUS_OF_INSERT');
      // Sequential quorum: until the sibling fetched the part, the next quorum INSERT is refused.
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          await insert();
          break;
        } catch (error) {
          if ((error as ClickHouseError).type !== 'UNSATISFIED_QUORUM_FOR_PREVIOUS_WRITE' || Date.now() > deadline)
            throw error;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      await syncReplica('s2r2');
      const copies = "SELECT count() FROM chaos.events_rep WHERE id = 'quorum-1'";
      expect([
        Number(await queryValue<string>(client('s2r1'), copies)),
        Number(await queryValue<string>(client('s2r2'), copies)),
      ]).toEqual([1, 1]);
    } finally {
      await Promise.all([viewless.close(), quorum.close()]);
    }
  });
  it('stays up when native clients hang up in the middle of the handshake, and still serves _dist reads', async () => {
    const replica = cluster.description.shards[1]!.replicas[0]!;
    const [host, port] = replica.tcp.split(':');
    // A peer's Distributed connection abandoned under load: part of a Hello, then a FIN or a reset.
    for (const hangUp of ['end', 'reset'] as const) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect({ host, port: Number(port) }, () => {
          socket.write(Buffer.from([0x00, 0x05, 0x68, 0x65]));
          setTimeout(() => {
            if (hangUp === 'end') socket.end();
            else socket.resetAndDestroy();
            resolve();
          }, 200);
        });
        socket.on('error', reject);
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await queryValue<string>(client(replica.name), 'SELECT 1')).toBe(1);
    expect(
      Number(await queryValue<string>(client('s1r1'), 'SELECT count() FROM chaos.events_dist')),
    ).toBeGreaterThanOrEqual(0);
  });
});
