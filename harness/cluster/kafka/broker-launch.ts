import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HarnessError } from '../../base/index.ts';
import type { ClusterState, KafkaBrokerState } from '../cluster-state.ts';
import type { SpawnOptions } from '../process/local-process.ts';
import { KAFKA_PRODUCER, planTopology, type TopologySpec } from '../topology.ts';
import { brokerLog4j, brokerProperties, kraftClusterId, localBrokerListeners } from './broker-config.ts';

const run = promisify(execFile);

/** Heap and start-up flags for a test machine: the broker's defaults assume a server of its own. */
const JVM_FLAGS = ['-Xms64m', '-Xmx384m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true'];

/** Every client of the brokers: each replica, then the harness's producer. */
export function kafkaClients(state: Pick<ClusterState, 'nodes'>): string[] {
  return [...state.nodes.map((node) => node.name), KAFKA_PRODUCER];
}

/** Per broker: controller and internal listeners, then a listener and a proxy per client. */
export function kafkaPortsNeeded(topology: TopologySpec): number {
  const clients = topology.shards * topology.replicas + 1;
  return (topology.kafka ?? 0) * (2 + 2 * clients);
}

export function assignKafkaPorts(state: ClusterState, topology: TopologySpec, ports: number[]): void {
  const next = () => {
    const port = ports.shift();
    if (port === undefined) throw new Error('port allocation ran short');
    return port;
  };
  const brokers = planTopology(topology).brokers.map((broker): KafkaBrokerState => {
    const home = join(state.dir, 'kafka', broker.name);
    return {
      name: broker.name,
      id: broker.id,
      controllerPort: next(),
      internalPort: next(),
      clients: Object.fromEntries(kafkaClients(state).map((client) => [client, { listener: next(), proxy: next() }])),
      configPath: join(home, 'server.properties'),
      dataDir: join(home, 'data'),
      logFile: join(home, 'broker.log'),
    };
  });
  Object.assign(state, { kafka: brokers });
}

/**
 * Writes each broker's config and formats its storage (KRaft refuses to start on an unformatted
 * log dir), all with one cluster id; resolves with the command lines that start them.
 */
export async function prepareBrokers(state: ClusterState, java: string, classpath: string): Promise<SpawnOptions[]> {
  const brokers = state.kafka ?? [];
  const clusterId = kraftClusterId();
  const clients = kafkaClients(state);
  return Promise.all(
    brokers.map(async (broker) => {
      const home = join(state.dir, 'kafka', broker.name);
      mkdirSync(broker.dataDir, { recursive: true });
      writeFileSync(
        broker.configPath,
        brokerProperties(localBrokerListeners(broker, brokers, clients, state.proxiesEnabled)),
      );
      const log4j = join(home, 'log4j2.properties');
      writeFileSync(log4j, brokerLog4j(broker.logFile));
      const jvm = [...JVM_FLAGS, `-Dlog4j2.configurationFile=${log4j}`, '-cp', classpath];
      try {
        await run(java, [...jvm, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', broker.configPath], {
          timeout: 60_000,
        });
      } catch (error) {
        throw new HarnessError(
          'MEMBER_START_FAILED',
          `formatting ${broker.name}'s storage failed: ${(error as { stderr?: string }).stderr?.trim() || (error as Error).message}`,
          { cause: error },
        );
      }
      return {
        name: broker.name,
        command: java,
        args: [...jvm, 'kafka.Kafka', broker.configPath],
        cwd: home,
        logFile: join(home, 'stdout.log'),
      };
    }),
  );
}
