import { describe, expect, it } from 'vitest';
import type { ClusterState } from '../cluster-state.ts';
import { proxyDefinitions, EMBEDDED_HOSTS } from '../proxy-wiring.ts';
import type { TopologySpec } from '../topology.ts';
import { brokerProperties, kraftClusterId, localBrokerListeners } from './broker-config.ts';
import { assignKafkaPorts, kafkaClients, kafkaPortsNeeded } from './broker-launch.ts';

function stateWith(topology: TopologySpec, proxiesEnabled = true): ClusterState {
  const state = {
    dir: '/run',
    proxiesEnabled,
    keepers: [],
    nodes: ['s1r1', 's1r2'].slice(0, topology.replicas).map((name) => ({ name })),
  } as unknown as ClusterState;
  const ports = Array.from({ length: kafkaPortsNeeded(topology) }, (_, i) => 30000 + i);
  assignKafkaPorts(state, topology, ports);
  expect(ports).toEqual([]);
  return state;
}

const props = (text: string) =>
  new Map(
    text
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );

describe('Kafka brokers of a local cluster', () => {
  it('gives each broker a listener per client (each replica, then the producer), every port distinct', () => {
    const state = stateWith({ shards: 1, replicas: 2, keepers: 1, kafka: 3 });
    expect(kafkaClients(state)).toEqual(['s1r1', 's1r2', 'producer']);
    const brokers = state.kafka ?? [];
    expect(brokers.map((broker) => broker.name)).toEqual(['kf1', 'kf2', 'kf3']);
    const ports = brokers.flatMap((broker) => [
      broker.controllerPort,
      broker.internalPort,
      ...Object.values(broker.clients).flatMap((client) => [client.listener, client.proxy]),
    ]);
    expect(new Set(ports).size).toBe(ports.length);
    expect(ports).toHaveLength(kafkaPortsNeeded({ shards: 1, replicas: 2, keepers: 1, kafka: 3 }));
  });

  it('advertises to each client its own proxy, so every link a client uses is one a fault can cut', () => {
    const state = stateWith({ shards: 1, replicas: 2, keepers: 1, kafka: 3 });
    const [, kf2] = state.kafka ?? [];
    if (kf2 === undefined) throw new Error('no kf2');
    const config = props(brokerProperties(localBrokerListeners(kf2, state.kafka ?? [], kafkaClients(state), true)));
    expect(config.get('node.id')).toBe('2');
    expect(config.get('controller.quorum.voters')).toBe(
      (state.kafka ?? []).map((broker) => `${broker.id}@127.0.0.1:${broker.controllerPort}`).join(','),
    );
    const advertised = config.get('advertised.listeners')?.split(',') ?? [];
    expect(advertised).toContain(`CLIENT1://127.0.0.1:${kf2.clients['s1r1']?.proxy}`);
    expect(advertised).toContain(`CLIENT3://127.0.0.1:${kf2.clients['producer']?.proxy}`);
    expect(config.get('listeners')).toContain(`CLIENT2://127.0.0.1:${kf2.clients['s1r2']?.listener}`);
    expect(config.get('min.insync.replicas')).toBe('2');
    expect(config.get('offsets.topic.replication.factor')).toBe('3');
    // The proxies carry every client link, and nothing else reaches a client listener.
    const definitions = proxyDefinitions({ ...state, nodes: [] }, EMBEDDED_HOSTS);
    expect(definitions).toHaveLength(9);
    expect(definitions).toContainEqual({
      name: 's1r2_kafka_kf2',
      listen: `127.0.0.1:${kf2.clients['s1r2']?.proxy}`,
      upstream: `127.0.0.1:${kf2.clients['s1r2']?.listener}`,
      enabled: true,
    });
  });

  it('with the proxies off advertises the listeners themselves, and one broker replicates nothing', () => {
    const state = stateWith({ shards: 1, replicas: 1, keepers: 1, kafka: 1 }, false);
    const [kf1] = state.kafka ?? [];
    if (kf1 === undefined) throw new Error('no kf1');
    const config = props(brokerProperties(localBrokerListeners(kf1, state.kafka ?? [], kafkaClients(state), false)));
    expect(config.get('advertised.listeners')).toContain(`CLIENT1://127.0.0.1:${kf1.clients['s1r1']?.listener}`);
    expect(config.get('min.insync.replicas')).toBe('1');
    expect(config.get('offsets.topic.replication.factor')).toBe('1');
  });
});

describe('kraftClusterId', () => {
  it('never starts with a dash, which the storage tool would read as an option', () => {
    const draws = [Buffer.from([0xf8, ...Array<number>(15).fill(1)]), Buffer.from(Array<number>(16).fill(1))];
    expect(draws[0]?.toString('base64url').startsWith('-')).toBe(true);
    const id = kraftClusterId(() => draws.shift() ?? Buffer.alloc(16));
    expect(id).toBe(Buffer.from(Array<number>(16).fill(1)).toString('base64url'));
    expect(id).toHaveLength(22);
  });
});
