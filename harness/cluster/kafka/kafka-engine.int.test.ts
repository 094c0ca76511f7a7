import type { ClickHouseClient } from '@clickhouse/client';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessClient, queryValue } from '../client.ts';
import { startEmbeddedCluster } from '../embedded/start-embedded.ts';
import type { StartedLocalCluster } from '../local-cluster.ts';

let cluster: StartedLocalCluster;
let replica: ClickHouseClient;

async function received(proxy: string): Promise<number> {
  const metrics = await (await fetch(`${cluster.description.toxiproxy}/metrics`)).text();
  const line = metrics
    .split('\n')
    .find((sample) => sample.includes(`proxy="${proxy}"`) && sample.includes('direction="upstream"'));
  return Number(line?.split(' ').at(-1) ?? Number.NaN);
}

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ topology: { shards: 1, replicas: 2, keepers: 1, kafka: 1 } });
  replica = harnessClient(cluster.description.shards[0]?.replicas[0]?.direct_http ?? '');
});

afterAll(async () => {
  await replica?.close();
  await cluster?.down();
});

describe('the Kafka engine on an embedded replica, against a real broker', () => {
  it('consumes through its own proxy what the producer produced through its own, every message at least once', async () => {
    const [broker] = cluster.description.kafka ?? [];
    if (broker === undefined) throw new Error('no broker in the description');
    const kafka = new Kafka({
      clientId: 'kafka-engine-test',
      brokers: [broker.bootstrap['producer'] ?? ''],
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'events', numPartitions: 4, replicationFactor: 1 }] });
    await admin.disconnect();
    // Idempotent: a send retried under load must not put a message in the topic twice.
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const ids = Array.from({ length: 200 }, (_, i) => i + 1);
    await producer.send({
      topic: 'events',
      acks: -1,
      messages: ids.map((id) => ({ partition: id % 4, key: String(id), value: JSON.stringify({ id, v: `m${id}` }) })),
    });
    await producer.disconnect();

    await replica.command({
      query: 'CREATE TABLE default.events_target (id UInt64, v String) ENGINE = MergeTree ORDER BY id',
    });
    await replica.command({
      query: `CREATE TABLE default.events_kafka (id UInt64, v String) ENGINE = Kafka SETTINGS kafka_broker_list = '${broker.bootstrap['s1r1']}', kafka_topic_list = 'events', kafka_group_name = 'kafka-engine-test', kafka_format = 'JSONEachRow'`,
    });
    await replica.command({
      query:
        'CREATE MATERIALIZED VIEW default.events_kafka_mv TO default.events_target AS SELECT id, v FROM default.events_kafka',
    });
    // The engine owes at-least-once: every id stored, a block consumed twice (a commit lost to a
    // slow machine) allowed. The suite under load once stored 358 rows of the 200.
    const deadline = Date.now() + 60_000;
    let stored = 0;
    while (stored < ids.length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      stored = Number(await queryValue<string>(replica, 'SELECT uniqExact(id) FROM default.events_target'));
    }
    expect(stored).toBe(ids.length);
    const strays = `SELECT countIf(id < 1 OR id > ${ids.length}) FROM default.events_target`;
    expect(Number(await queryValue<string>(replica, strays))).toBe(0);
    // Both clients went through their own proxies; the other replica's link carried nothing.
    expect(await received('producer_kafka_kf1')).toBeGreaterThan(0);
    expect(await received('s1r1_kafka_kf1')).toBeGreaterThan(0);
    expect(await received('s1r2_kafka_kf1')).toBe(0);
  });
});
