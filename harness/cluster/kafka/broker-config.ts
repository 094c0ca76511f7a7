import type { KafkaBrokerState } from '../cluster-state.ts';

/** A client's listener name on every broker: CLIENT1.. in the order of `clients` (names reach no config). */
export const clientListener = (index: number): string => `CLIENT${index + 1}`;

/**
 * `server.properties` of one broker: KRaft with every broker a controller voter, one listener per
 * client advertised where that client must connect (its proxy, or the listener itself when the
 * proxies are off), small buffers and heaps fit for a test machine, and topics that survive one lost
 * broker when there are three.
 */
export function brokerProperties(
  broker: KafkaBrokerState,
  all: readonly KafkaBrokerState[],
  clients: readonly string[],
  proxiesEnabled: boolean,
): string {
  const replication = Math.min(3, all.length);
  const clientEntries = clients.map((client, index) => {
    const ports = broker.clients[client];
    if (ports === undefined) throw new Error(`broker ${broker.name} has no listener for ${client}`);
    return { name: clientListener(index), ...ports };
  });
  const lines = [
    'process.roles=broker,controller',
    `node.id=${broker.id}`,
    `controller.quorum.voters=${all.map((voter) => `${voter.id}@127.0.0.1:${voter.controllerPort}`).join(',')}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=INTERNAL',
    `listeners=${[
      `CONTROLLER://127.0.0.1:${broker.controllerPort}`,
      `INTERNAL://127.0.0.1:${broker.internalPort}`,
      ...clientEntries.map((entry) => `${entry.name}://127.0.0.1:${entry.listener}`),
    ].join(',')}`,
    `advertised.listeners=${[
      `INTERNAL://127.0.0.1:${broker.internalPort}`,
      ...clientEntries.map((entry) => `${entry.name}://127.0.0.1:${proxiesEnabled ? entry.proxy : entry.listener}`),
    ].join(',')}`,
    `listener.security.protocol.map=${['CONTROLLER', 'INTERNAL', ...clientEntries.map((entry) => entry.name)]
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
