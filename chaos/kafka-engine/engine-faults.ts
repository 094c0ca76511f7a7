import fc from 'fast-check';
import type { ClusterDescription, ReplicaDescription } from '../../harness/cluster/index.ts';
import {
  brokerStop,
  type Fault,
  keeperLinkCut,
  latencyFault,
  proxyDown,
  replicaKill,
  resetPeerFault,
} from '../nemeses/index.ts';
import { KafkaTableDetached, KafkaTableRecreated, KillBetweenWriteAndCommit } from './consumer-faults.ts';
import { type EngineSettings, kafkaTableDdl } from './engine-settings.ts';
import { replicaBootstrap } from './engine-topic.ts';

/**
 * A fault of the Kafka engine's scenarios, as data (a run's input). A replica's faults aim at a
 * replica whose consumer holds partitions when the fault is applied (`pick` chooses among them);
 * a broker's at `pick` among the brokers.
 */
export type EngineFaultSpec =
  | { readonly kind: 'broker-link'; readonly how: 'proxy_down' | 'latency' | 'reset_peer'; readonly ms: number }
  | { readonly kind: 'broker-process'; readonly how: 'kill' | 'pause'; readonly majority: boolean }
  /** `write-and-commit`: killed once its consumer wrote a block, while the block's offset commit is still on its way. */
  | { readonly kind: 'replica-kill'; readonly between?: 'write-and-commit' }
  | { readonly kind: 'keeper-link' }
  /** `consumers`: the table made again with the other `kafka_num_consumers`; absent: detached and attached. */
  | { readonly kind: 'rebalance'; readonly how?: 'consumers' };

/** The faults aimed at one consuming replica; broker faults take the brokers. */
export const aimsAtConsumer = (fault: EngineFaultSpec): boolean => fault.kind !== 'broker-process';

export const arbBrokerLink: fc.Arbitrary<EngineFaultSpec> = fc.record({
  kind: fc.constant('broker-link' as const),
  how: fc.constantFrom('proxy_down' as const, 'latency' as const, 'reset_peer' as const),
  ms: fc.integer({ min: 200, max: 1500 }),
});

export const arbBrokerProcess: fc.Arbitrary<EngineFaultSpec> = fc.record({
  kind: fc.constant('broker-process' as const),
  how: fc.constantFrom('kill' as const, 'pause' as const),
  majority: fc.boolean(),
});

export const arbReplicaKill: fc.Arbitrary<EngineFaultSpec> = fc.oneof(
  fc.constant({ kind: 'replica-kill' as const }),
  fc.constant({ kind: 'replica-kill' as const, between: 'write-and-commit' as const }),
);
export const arbKeeperLink: fc.Arbitrary<EngineFaultSpec> = fc.constant({ kind: 'keeper-link' as const });
export const arbRebalance: fc.Arbitrary<EngineFaultSpec> = fc.oneof(
  fc.constant({ kind: 'rebalance' as const }),
  fc.constant({ kind: 'rebalance' as const, how: 'consumers' as const }),
);

/** The replica's own proxies to every broker: what a fault on its Kafka links acts on. */
const kafkaLinks = (description: ClusterDescription, replica: string): string[] =>
  (description.kafka ?? []).map((broker) => broker.proxies[replica] ?? '').filter((proxy) => proxy !== '');

/**
 * The faults that make one spec real: one per stopped broker, one otherwise. `consumer` is the
 * replica a consumer-aimed fault takes; `broker` the first broker a process fault takes (a
 * majority takes the next ones too, in the description's order).
 */
export function engineFaults(
  spec: EngineFaultSpec,
  description: ClusterDescription,
  consumer: string,
  broker: number,
  settings: EngineSettings,
): Fault[] {
  switch (spec.kind) {
    case 'broker-link': {
      const links = kafkaLinks(description, consumer);
      if (spec.how === 'proxy_down') return [proxyDown(links)];
      if (spec.how === 'latency') return [latencyFault(links, spec.ms)];
      return [resetPeerFault(links, 0)];
    }
    case 'broker-process': {
      const brokers = (description.kafka ?? []).map((entry) => entry.name);
      const count = spec.majority ? Math.floor(brokers.length / 2) + 1 : 1;
      return Array.from({ length: count }, (_, k) => brokers[(broker + k) % brokers.length] ?? '').map((name) =>
        brokerStop(name, spec.how),
      );
    }
    case 'replica-kill': {
      const replica = replicaOf(description, consumer);
      // The window needs offsets the harness can read back (the broker's), and a commit that follows
      // the block: `kafka_commit_every_batch = 1` commits each batch before its block is written.
      // Drawn runs that aim there have both (`windowReachable`); an input made by hand may not.
      if (
        spec.between === undefined ||
        settings.offsets !== 'broker' ||
        settings.commitEveryBatch ||
        replica === undefined
      )
        return [replicaKill(consumer)];
      return [new KillBetweenWriteAndCommit(replica, kafkaLinks(description, consumer))];
    }
    case 'keeper-link':
      return [keeperLinkCut(replicaOf(description, consumer)?.proxies.keepers ?? [], `${consumer}'s Keeper links`)];
    case 'rebalance': {
      const replica = replicaOf(description, consumer);
      if (replica === undefined) return [];
      if (!recreates(spec, settings)) return [new KafkaTableDetached(replica)];
      const changed: EngineSettings = { ...settings, numConsumers: settings.numConsumers === 1 ? 2 : 1 };
      const ddl = (database: string) =>
        kafkaTableDdl(
          { database, topic: database, group: database, brokers: replicaBootstrap(description, replica.name) },
          changed,
        );
      return [new KafkaTableRecreated(replica, ddl, changed.numConsumers)];
    }
  }
}

const replicaOf = (description: ClusterDescription, name: string): ReplicaDescription | undefined =>
  description.shards.flatMap((shard) => shard.replicas).find((entry) => entry.name === name);

/** One line for the report. */
export function describeEngineFault(spec: EngineFaultSpec): string {
  switch (spec.kind) {
    case 'broker-link':
      return `a consuming replica's broker links: ${spec.how}${spec.how === 'latency' ? ` ${spec.ms} ms` : ''}`;
    case 'broker-process':
      return `${spec.how} ${spec.majority ? 'a majority of the brokers' : 'one broker'}`;
    case 'replica-kill':
      return spec.between === undefined
        ? 'kill a consuming replica'
        : 'kill a consuming replica between a block it wrote and its offset commit (whether it landed there is read back)';
    case 'keeper-link':
      return "cut a consuming replica's Keeper links";
    case 'rebalance':
      return spec.how === 'consumers'
        ? "make a consuming replica's Kafka table again with the other kafka_num_consumers (detach and attach where offsets are in Keeper): the group rebalances"
        : "detach a consuming replica's Kafka table, then attach it: the group rebalances twice";
  }
}

/**
 * Whether a rebalance makes the table again: asked for, and the group's offsets in the broker (a
 * StorageKafka2 table's drop takes its replica's part of the Keeper offsets with it).
 */
const recreates = (spec: EngineFaultSpec, settings: EngineSettings): boolean =>
  spec.kind === 'rebalance' && spec.how === 'consumers' && settings.offsets === 'broker';
