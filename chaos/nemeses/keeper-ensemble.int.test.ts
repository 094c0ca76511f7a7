import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessClient, type StartedLocalCluster } from '../../harness/cluster/index.ts';
import { createShardedTable } from '../../harness/clickhouse/index.ts';
import { startEmbeddedCluster } from '../../harness/cluster/embedded/start-embedded.ts';
import { keeperRole, waitUntil } from '../../harness/cluster/health.ts';
import { componentLogger } from '../../harness/base/index.ts';
import type { NemesisContext } from './fault.ts';
import { RunUndo } from './run-undo.ts';
import { startedClusterJournal, UndoJournal } from './undo-journal.ts';
import { keeperLeaderKill, keeperLeaderPause, keeperQuorumLoss } from './keeper-fault.ts';

// The ensemble faults on a real three-member ZooKeeper ensemble: each finds its members by what
// the ensemble says of itself (`srvr`), stops them, and leaves an ensemble with a leader on heal.

let cluster: StartedLocalCluster;
let context: NemesisContext;
let client: ClickHouseClient;

const roles = async () =>
  Object.fromEntries(
    await Promise.all(cluster.description.keepers.map(async (k) => [k.name, await keeperRole(k.address)] as const)),
  );
const leaders = async () =>
  Object.entries(await roles())
    .filter(([, role]) => role === 'leader')
    .map(([name]) => name);

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ topology: { shards: 1, replicas: 2, keepers: 3 } });
  const journal = new UndoJournal(startedClusterJournal(cluster), cluster);
  context = {
    cluster,
    proxies: journal.deps.proxies,
    undo: new RunUndo(journal, 'keeper-ensemble-test'),
    log: componentLogger('nemesis-test'),
    database: 'chaos',
  };
  const clients = cluster.description.shards.flatMap((s) => s.replicas.map((r) => harnessClient(r.direct_http)));
  await createShardedTable(clients, { database: 'chaos', name: 'events', columns: 'id String', orderBy: 'id' });
  await Promise.all(clients.map((c) => c.close()));
  client = harnessClient(cluster.description.shards[0]!.replicas[0]!.direct_http, { timeoutMs: 10_000 });
}, 120_000);

afterAll(async () => {
  await client?.close();
  await cluster?.down();
});

describe('Keeper ensemble faults', { timeout: 120_000 }, () => {
  it('finds the ensemble in one piece: one leader, two followers', async () => {
    expect(Object.values(await roles()).sort()).toEqual(['follower', 'follower', 'leader']);
  });

  it.each([
    ['paused', keeperLeaderPause],
    ['killed', keeperLeaderKill],
  ])('stops the leader it finds (%s); the others elect a new one, and writes go on', async (_, fault) => {
    const [before] = await leaders();
    const applied = fault();
    const window = await applied.apply(context);
    try {
      expect([window.targets, window.verified, window.slowerThanMs]).toEqual([[before], true, 500]);
      await waitUntil('a new Keeper leader', async () => (await leaders()).some((name) => name !== before), {
        timeoutMs: 30_000,
        intervalMs: 200,
      });
      await client.insert({ table: 'chaos.events_rep', values: [{ id: `after-${before}` }], format: 'JSONEachRow' });
    } finally {
      await applied.heal(context, window);
    }
    expect(Object.values(await roles()).filter((role) => role !== 'unreachable')).toHaveLength(3);
  });

  it('pauses a majority, leader first: the last member serves nothing until they are back', async () => {
    const [leader] = await leaders();
    const applied = keeperQuorumLoss();
    const window = await applied.apply(context);
    try {
      expect(window.targets).toHaveLength(2);
      expect(window.targets[0]).toBe(leader);
      expect(window.verified).toBe(true);
      const [left] = cluster.description.keepers.filter((k) => !window.targets.includes(k.name));
      await waitUntil(
        'the last member to lose its quorum',
        async () => (await keeperRole(left!.address)) === 'unreachable',
        {
          timeoutMs: 20_000,
          intervalMs: 200,
        },
      );
    } finally {
      await applied.heal(context, window);
    }
    expect(await leaders()).toHaveLength(1);
  });
});
