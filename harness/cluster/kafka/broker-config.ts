import { randomBytes } from 'node:crypto';
import type { KafkaBrokerState } from '../cluster-state.ts';

/**
 * A KRaft cluster id: 16 random bytes, URL-safe base64 without padding, drawn again while it
 * starts with `-` (as Kafka's own `Uuid.randomUuid` does): the storage tool's argument parser
 * reads such an id as an option, and the format fails one start in 64.
 */
export function kraftClusterId(draw: () => Buffer = () => randomBytes(16)): string {
  for (;;) {
    const id = draw().toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/** A client's listener name on every broker: CLIENT1.. in the order of `clients` (names reach no config). */
export const clientListener = (index: number): string => `CLIENT${index + 1}`;

/** Where one broker listens and what it tells each peer, as `host:port`; the backends fill it in. */
export interface BrokerListeners {
  readonly id: number;
  /** Every broker's controller endpoint, by node id: every broker is a voter. */
  readonly voters: readonly { readonly id: number; readonly address: string }[];
  readonly controller: string;
  /** The broker-to-broker listener (never proxied). */
  readonly internal: { readonly bind: string; readonly advertised: string };
  /** One per client, in `kafkaClients` order: where it binds, and the address that client is told. */
  readonly clients: readonly { readonly bind: string; readonly advertised: string }[];
  readonly dataDir: string;
}

/**
 * `server.properties` of one broker: KRaft with every broker a controller voter, one listener per
 * client advertised where that client must connect (its proxy, or the listener itself when the
 * proxies are off), small thread pools fit for a test machine, and topics that survive one lost
 * broker when there are three.
 */
export function brokerProperties(broker: BrokerListeners): string {
  const replication = Math.min(3, broker.voters.length);
  const clients = broker.clients.map((client, index) => ({ name: clientListener(index), ...client }));
  const lines = [
    'process.roles=broker,controller',
    `node.id=${broker.id}`,
    `controller.quorum.voters=${broker.voters.map((voter) => `${voter.id}@${voter.address}`).join(',')}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=INTERNAL',
    `listeners=${[
      `CONTROLLER://${broker.controller}`,
      `INTERNAL://${broker.internal.bind}`,
      ...clients.map((client) => `${client.name}://${client.bind}`),
    ].join(',')}`,
    `advertised.listeners=${[
      `INTERNAL://${broker.internal.advertised}`,
      ...clients.map((client) => `${client.name}://${client.advertised}`),
    ].join(',')}`,
    `listener.security.protocol.map=${['CONTROLLER', 'INTERNAL', ...clients.map((client) => client.name)]
      .map((name) => `${name}:PLAINTEXT`)
      .join(',')}`,
    `log.dirs=${broker.dataDir}`,
    `offsets.topic.replication.factor=${replication}`,
    `transaction.state.log.replication.factor=${replication}`,
    `transaction.state.log.min.isr=${Math.min(2, replication)}`,
    `default.replication.factor=${replication}`,
    `min.insync.replicas=${Math.min(2, replication)}`,
    'offsets.topic.num.partitions=4',
    'group.initial.rebalance.delay.ms=0',
    'auto.create.topics.enable=false',
    'num.network.threads=2',
    'num.io.threads=2',
    'log.segment.bytes=16777216',
  ];
  return `${lines.join('\n')}\n`;
}

/** A local backend's broker: everything on 127.0.0.1, each client told its proxy (or, proxies off, the listener). */
export function localBrokerListeners(
  broker: KafkaBrokerState,
  all: readonly KafkaBrokerState[],
  clients: readonly string[],
  proxiesEnabled: boolean,
): BrokerListeners {
  const at = (port: number) => `127.0.0.1:${port}`;
  return {
    id: broker.id,
    voters: all.map((voter) => ({ id: voter.id, address: at(voter.controllerPort) })),
    controller: at(broker.controllerPort),
    internal: { bind: at(broker.internalPort), advertised: at(broker.internalPort) },
    clients: clients.map((client) => {
      const ports = broker.clients[client];
      if (ports === undefined) throw new Error(`broker ${broker.name} has no listener for ${client}`);
      return { bind: at(ports.listener), advertised: at(proxiesEnabled ? ports.proxy : ports.listener) };
    }),
    dataDir: broker.dataDir,
  };
}

/** Log4j 2 (properties form, which needs no extra jar): INFO and up to the member's log file. */
export function brokerLog4j(logFile: string): string {
  return [
    'appender.file.type=File',
    'appender.file.name=FILE',
    `appender.file.fileName=${logFile}`,
    'appender.file.layout.type=PatternLayout',
    'appender.file.layout.pattern=[%d] %p %m (%c)%n',
    'rootLogger.level=INFO',
    'rootLogger.appenderRef.file.ref=FILE',
    'logger.kafka.name=kafka',
    'logger.kafka.level=INFO',
    'logger.apache.name=org.apache.kafka',
    'logger.apache.level=WARN',
    '',
  ].join('\n');
}
