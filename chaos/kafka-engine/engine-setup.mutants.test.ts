import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedOf } from '../../harness/base/index.ts';
import { startCluster, type StartedCluster } from '../../harness/cluster/index.ts';
import { anomalyKind } from '../../properties/checkers/index.ts';
import { RunUndo, startedClusterJournal, UndoJournal } from '../nemeses/index.ts';
import { createTopic, kafkaClient } from './engine-topic.ts';
import type { SetupMistake } from './engine-run.ts';
import { runEngineScenario } from './engine-scenario.ts';
import { ENGINE_BROKERS, ENGINE_SCENARIOS } from './engine-scenarios.ts';

// A random seed, printed: a red run replays with CHAOS_SEED.
const seed = seedOf(Number(process.env['CHAOS_SEED'] ?? Math.floor(Math.random() * 2 ** 31)), 'CHAOS_SEED');
const log = pino({ level: 'silent' });
let cluster: StartedCluster;
let journal: UndoJournal;
const reportDir = mkdtempSync(join(tmpdir(), 'engine-setup-'));

beforeAll(async () => {
  process.stderr.write(`engine-setup self-test: seed ${seed}\n`);
  cluster = await startCluster('embedded', {
    topology: { shards: 2, replicas: 2, keepers: 1, kafka: ENGINE_BROKERS },
    logger: log,
  });
  journal = new UndoJournal(startedClusterJournal(cluster), cluster);
}, 120_000);

afterAll(async () => {
  journal?.close();
  await cluster?.down();
  rmSync(reportDir, { recursive: true, force: true });
});

const scenario = (name: string) => {
  const found = ENGINE_SCENARIOS.find((entry) => entry.name === name);
  if (found === undefined) throw new Error(`no scenario ${name}`);
  return found;
};

const run = (name: string, setup: SetupMistake | undefined) =>
  runEngineScenario({
    cluster,
    journal,
    scenario: scenario(name),
    profile: 'ci',
    seed,
    dir: join(reportDir, `${name}-${setup ?? 'control'}`),
    databasePrefix: 'engine_setup',
    serverDedup: 'alternate',
    log,
    setup,
    shrink: false,
  });

describe('the Kafka engine checker against setups a user gets wrong, on the real cluster', () => {
  it.each([
    // Under `stream` every run produces a broken message: a view that keeps its row stores a row no source made.
    ['unfiltered-view', 'kafka-broker-link', ['unexpected']],
    // Each replica keeps what its own consumer wrote: the shard's first replica lacks its sibling's
    // rows (lost), and the siblings' counts differ (diverged) unless each consumed an equal share.
    ['local-target', 'kafka-keeper-link', ['lost', 'diverged']],
  ] as const)(
    '%s is a violation in %s, caught as one of %j and nothing else',
    async (setup, name, explained) => {
      const report = await run(name, setup);
      expect(report.verdict, report.notes.join('\n')).toBe('violation');
      const kinds = report.anomalies.map((found) => anomalyKind(found.category));
      expect(kinds.length).toBeGreaterThan(0);
      for (const kind of kinds) expect(explained as readonly string[]).toContain(kind);
      expect(report.replayCommand).toContain(`--scenario ${name} --seed ${seed}`);
    },
    300_000,
  );

  it("never adopts a topic of its run's name that exists already, and its undo leaves it alone", async () => {
    const topic = `someone_elses_${seed}`;
    const admin = kafkaClient(cluster.description, 'engine-setup-test').admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
      const undo = new RunUndo(journal, reportDir);
      await expect(createTopic(cluster.description, undo, topic, 2)).rejects.toThrow(/exists already/);
      await undo.stop('test');
      expect(await admin.listTopics()).toContain(topic);
    } finally {
      await admin.disconnect();
    }
  }, 60_000);

  it('the same seed with the setup as it should be passes', async () => {
    const report = await run('kafka-broker-link', undefined);
    expect(report.verdict, report.notes.join('\n')).toBe('pass');
  }, 300_000);
});
