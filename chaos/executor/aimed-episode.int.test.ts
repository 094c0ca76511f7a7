import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessClient, type StartedLocalCluster } from '../../harness/cluster/index.ts';
import { createShardedTable } from '../../harness/clickhouse/index.ts';
import { startEmbeddedCluster } from '../../harness/cluster/embedded/start-embedded.ts';
import { eventsOfType, HistoryWriter } from '../../harness/flow/history/index.ts';
import { columnsDdl, FlowSupervisor, sourceConfig } from '../../harness/flow/index.ts';
import { componentLogger } from '../../harness/base/index.ts';
import { collectGroundTruth } from '../../harness/oracle/index.ts';
import { clientLinksOf, faultEvidence } from '../../properties/checkers/index.ts';
import { factsFromHistory } from '../../properties/checkers/from-history.ts';
import { resolveUnknownOutcomes } from '../../properties/checkers/server-log.ts';
import {
  faultSpec,
  type NemesisContext,
  planOf,
  REQUEST_TIMEOUT,
  RESET_PEER,
  RunUndo,
  startedClusterJournal,
  UndoJournal,
} from '../nemeses/index.ts';
import { aimedEpisode } from './aimed-episode.ts';
import { NemesisRecord } from './nemesis-record.ts';

// A fault armed on the sink's events meets an INSERT by construction: 20 episodes in a row, each
// aimed at the next INSERT of a real exactly-once sink, each must end that INSERT unknown —
// committed when the answer was cut, absent when the request was — as the servers' logs show.

const DATABASE = 'aimed';
let cluster: StartedLocalCluster;
let dir: string;
const source = sourceConfig({ seed: 5, partitions: 1, messagesPerEpoch: 4 });

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ topology: { shards: 1, replicas: 2, keepers: 1 } });
  dir = mkdtempSync(join(tmpdir(), 'aimed-episode-'));
  const clients = cluster.description.shards[0]!.replicas.map((replica) => harnessClient(replica.direct_http));
  await createShardedTable(clients, { database: DATABASE, name: 'events', columns: columnsDdl(source), orderBy: 'id' });
  await Promise.all(clients.map((client) => client.close()));
});

/** The nemesis side of an episode on the test's cluster, its faults recorded in the cluster's undo journal. */
function nemesis(): NemesisContext {
  const journal = new UndoJournal(startedClusterJournal(cluster), cluster);
  return {
    cluster,
    proxies: journal.deps.proxies,
    undo: new RunUndo(journal, dir),
    log: componentLogger('aimed-episode-test'),
    database: DATABASE,
  };
}
const running = new AbortController().signal;

afterAll(async () => {
  await cluster?.down();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('faults aimed at the sink’s next INSERT', { timeout: 240_000 }, () => {
  it('meet it in 20 of 20 tries, with both kinds of unknown outcome', async () => {
    const replica = cluster.description.shards[0]!.replicas[0]!;
    const url = new URL(replica.http);
    const log = componentLogger('aimed-episode-test');
    const supervisor = new FlowSupervisor({ dir, source, log });
    const worker = await supervisor.launch({
      spec: {
        sink_class_name: 'ClickHouseBatchingSink',
        name: 'aimed',
        parameters: { host: url.hostname, port: Number(url.port), database: DATABASE, table: 'events_rep' },
        dynamic_parameters: { max_rows_per_batch: 4, retry_backoff: 20, write_timeout: 5000 },
      },
    });
    const record = new NemesisRecord(HistoryWriter.open(supervisor.historyDir, 'nemesis'));
    const deps = { worker, nemesis: nemesis(), record, signal: running };
    await worker.runEpochs(1);
    for (let i = 0; i < 20; i += 1)
      await aimedEpisode(deps, {
        plan: i % 2 === 0 ? planOf(faultSpec(RESET_PEER, {})) : planOf(faultSpec(REQUEST_TIMEOUT, { ms: 200 })),
        epochs: 1,
        holdMs: 0,
      });
    record.close();
    await worker.stop();
    const history = await supervisor.close();

    const facts = factsFromHistory(history.events, 'exactly-once', source.generation);
    const truth = await collectGroundTruth(cluster.description, { database: DATABASE, table: 'events' });
    const aimedAt = new Map(
      eventsOfType(history.events, 'fault-start').map((start) => [start.aimedAt?.queryId ?? '', start.expects]),
    );
    const aimedAttempts = facts.attempts.filter((attempt) => aimedAt.has(attempt.queryId));
    expect(aimedAttempts).toHaveLength(20);
    expect(truth.logMarkerFound).toEqual([replica.name, cluster.description.shards[0]!.replicas[1]!.name]);
    const resolved = resolveUnknownOutcomes(aimedAttempts, truth.serverInserts, {
      lostLog: () => false,
      vouched: () => true,
    });
    expect(resolved.landed.map((attempt) => aimedAt.get(attempt.queryId))).toEqual(Array(10).fill('landed'));
    expect(resolved.absent.map((attempt) => aimedAt.get(attempt.queryId))).toEqual(Array(10).fill('absent'));
    // Each fired by its own effect: resolved as its plan expected, on the link the fault proxy counted it through.
    const fired = faultEvidence(history.events, facts.attempts, {
      exceptionCodes: new Map(truth.serverInserts.map((insert) => [insert.queryId, insert.exceptionCode ?? 0])),
      unknown: resolved,
      clientLinks: clientLinksOf(cluster.description),
    });
    expect(fired.missed).toEqual([]);
    expect(Object.fromEntries(fired.fired)).toEqual({ reset_peer: 10, timeout: 10 });
    // Exactly once all the same: every message of the 21 epochs is in the table once.
    const rows = [...truth.replicas[0]!.counts.values()];
    expect(rows).toHaveLength(84);
    expect(rows.every((count) => count === 1)).toBe(true);
  });

  it('an INSERT that never comes leaves the fault missed, with its reason, and does not hang', async () => {
    const supervisor = new FlowSupervisor({
      dir: mkdtempSync(join(dir, 'missed-')),
      source,
      log: componentLogger('aimed-episode-test'),
    });
    const worker = await supervisor.launch({
      spec: {
        sink_class_name: 'AtLeastOnceClickHouseSink',
        name: 'missed',
        parameters: {
          host: new URL(cluster.description.shards[0]!.replicas[0]!.http).hostname,
          database: DATABASE,
          table: 'events_rep',
        },
      },
    });
    const record = new NemesisRecord(HistoryWriter.open(supervisor.historyDir, 'nemesis'));
    const started = Date.now();
    await aimedEpisode(
      { worker, nemesis: nemesis(), record, signal: running },
      { plan: planOf(faultSpec(RESET_PEER, {})), epochs: 0, holdMs: 0 },
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    record.close();
    const history = await supervisor.close();
    expect(eventsOfType(history.events, 'fault-missed').map((event) => event.reason)).toEqual([
      'armed on the next INSERT: the writes ended without an INSERT',
    ]);
    const noLog = {
      exceptionCodes: new Map(),
      unknown: { landed: [], absent: [], unresolved: [] },
      clientLinks: clientLinksOf(cluster.description),
    };
    expect(faultEvidence(history.events, [], noLog).missed).toEqual([
      {
        fault: 'reset_peer',
        reason: "reset_peer(the INSERT's response): armed on the next INSERT: the writes ended without an INSERT",
      },
    ]);
  });
});
