import { setTimeout as delay } from 'node:timers/promises';
import { type Admin, Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { HarnessError, isHarnessError, withTimeout } from '../../harness/base/index.ts';
import { type ClusterDescription, KAFKA_PRODUCER } from '../../harness/cluster/index.ts';
import type { TopicMessage } from '../../properties/checkers/index.ts';
import type { RunUndo } from '../nemeses/index.ts';
import { brokenValue, messageValue } from './source.ts';

const CLIENT_DEADLINE_MS = 10_000;
const TOPIC_TAKEN = 'KAFKA_TOPIC_TAKEN';
/** A send the brokers cannot take (a majority down) gives up after this; what it wrote, the audit finds. */
const SEND_DEADLINE_MS = 8_000;
const AUDIT_DEADLINE_MS = 60_000;
/** How long a read of the topic's state is tried again after a heal (a leader election takes seconds). */
const SETTLE_DEADLINE_MS = 30_000;
/** How long a new topic may take until every partition's leader answers for it. */
const TOPIC_READY_MS = 20_000;

/** The producer's own links: each broker through the producer's proxy. */
export function producerBootstrap(description: ClusterDescription): string[] {
  const brokers = description.kafka ?? [];
  if (brokers.length === 0)
    throw new HarnessError('KAFKA_NO_BROKERS', 'the cluster runs no Kafka broker (cluster up --kafka 1|3)');
  return brokers.map((broker) => broker.bootstrap[KAFKA_PRODUCER] ?? '');
}

/** A client of the brokers through the producer's links; quiet (its errors reach the harness as thrown errors). */
export const kafkaClient = (description: ClusterDescription, clientId: string): Kafka =>
  new Kafka({
    clientId,
    brokers: producerBootstrap(description),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3_000,
    requestTimeout: CLIENT_DEADLINE_MS,
    retry: { retries: 3 },
  });

/** A broker's own listener for one replica: the address its Kafka table dials, through that replica's proxy. */
export const replicaBootstrap = (description: ClusterDescription, replica: string): string[] =>
  (description.kafka ?? []).map((broker) => broker.bootstrap[replica] ?? '');

/** The run's topic, recorded in its undo before it is made (the run's end deletes it). */
export async function createTopic(
  description: ClusterDescription,
  undo: RunUndo,
  topic: string,
  partitions: number,
): Promise<void> {
  const admin = kafkaClient(description, 'chaos-kafka-engine').admin();
  await admin.connect();
  try {
    const replicationFactor = Math.min(3, producerBootstrap(description).length);
    // Never adopt a topic of that name: it is someone else's, and its record is closed unused,
    // so no undo deletes it.
    await undo.do(
      { kind: 'kafka-topic', topic },
      async () => {
        const created = await admin.createTopics({
          topics: [{ topic, numPartitions: partitions, replicationFactor }],
          waitForLeaders: false,
        });
        if (!created) throw new HarnessError(TOPIC_TAKEN, `the Kafka topic ${topic} exists already`);
      },
      (error) => isHarnessError(error, TOPIC_TAKEN),
    );
    await awaitTopicServed(admin, topic, partitions);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Until every partition of a new topic has a leader that answers for it. KafkaJS's own wait
 * (`waitForLeaders`) is known to end in "This server does not host this topic-partition" while the
 * brokers learn of the topic one by one (kafkajs#815), which is how an engine self-test run ended
 * within a second of its start (seed 36513486, an infra-error): a broker's not knowing a topic it
 * was just told of is a moment, not an answer, so it is asked again.
 */
async function awaitTopicServed(admin: Admin, topic: string, partitions: number): Promise<void> {
  const until = Date.now() + TOPIC_READY_MS;
  for (;;) {
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
      const led = metadata.topics[0]?.partitions.filter((partition) => partition.leader >= 0).length ?? 0;
      if (led === partitions && (await admin.fetchTopicOffsets(topic)).length === partitions) return;
    } catch (error) {
      if (Date.now() >= until) throw error;
    }
    if (Date.now() >= until)
      throw new HarnessError(
        'KAFKA_TOPIC_NOT_SERVED',
        `the brokers did not serve every partition of ${topic} within ${TOPIC_READY_MS} ms`,
      );
    await delay(200);
  }
}

/** What the producer knows of a message it sent: acknowledged by the brokers (acks = all), or not known. */
export interface ProducedChunk {
  readonly acknowledged: readonly number[];
  readonly unknown: readonly number[];
  /** Where the brokers said each partition's share of an acknowledged chunk begins: its first offset. */
  readonly offsets: readonly AcknowledgedAt[];
}

/** One partition's share of an acknowledged send, as the brokers answered it. */
export interface AcknowledgedAt {
  readonly partition: number;
  readonly baseOffset: number;
  /** Its ids, in the order they were sent. */
  readonly ids: readonly number[];
}

const key = (id: number, broken: boolean) => (broken ? `b${id}` : String(id));

/** One partition's answer to a send, as KafkaJS returns it. */
export interface PartitionAnswer {
  readonly partition: number;
  readonly errorCode: number;
  readonly baseOffset?: string;
}

/**
 * A send's ids split by what the brokers answered for their partition: acknowledged where a
 * partition's answer is there, without error, with an offset; unknown otherwise. A resolved send
 * is not enough: when a partition's leader moves during KafkaJS's retry to a broker that had
 * already answered for another partition, that partition's share is never sent and the send still
 * resolves (KafkaJS 2.2.4, `sendMessages`, read in its code). A guard, not the whole cure: the
 * 229 "acknowledged" ids the topic never held on seed 314357146 were the idempotent producer's
 * doing (see `SourceProducer`).
 */
export function readAnswers(
  ids: readonly number[],
  partitions: number,
  answers: readonly PartitionAnswer[],
): ProducedChunk {
  const offsets: AcknowledgedAt[] = [];
  const acknowledged: number[] = [];
  const unknown: number[] = [];
  const byPartition = new Map(answers.map((answer) => [answer.partition, answer]));
  for (let partition = 0; partition < partitions; partition++) {
    const share = ids.filter((id) => id % partitions === partition);
    if (share.length === 0) continue;
    const answer = byPartition.get(partition);
    const baseOffset = Number(answer?.baseOffset ?? -1);
    if (answer === undefined || answer.errorCode !== 0 || !(baseOffset >= 0)) {
      unknown.push(...share);
      continue;
    }
    acknowledged.push(...share);
    offsets.push({ partition, baseOffset, ids: share });
  }
  return { acknowledged, unknown, offsets };
}

/**
 * The harness's producer (acks = all): messages go to partition `id % partitions`, a broken one
 * keyed `b<id>` so the audit tells it apart. A send that fails or outlives its deadline leaves its
 * ids unknown: they may be in the topic or not, and the audit says which.
 *
 * Not idempotent, on purpose: a send that outlives its deadline goes on retrying while the next
 * one starts, and KafkaJS's idempotent producer then gives a later batch the sequence number of one
 * the broker had already written, which the broker answers as a duplicate at the earlier batch's
 * offset and drops (seed 314357146 on the real Toxiproxy: a partition's share of the fourth chunk
 * "acknowledged" at the offset of the third's). Without idempotence a retry may write a message
 * twice, which the checker counts by topic position, so nothing the source sent is lost to it.
 */
export class SourceProducer {
  private constructor(
    private readonly producer: Producer,
    private readonly topic: string,
    private readonly partitions: number,
  ) {}

  static async open(description: ClusterDescription, topic: string, partitions: number): Promise<SourceProducer> {
    const producer = kafkaClient(description, 'chaos-kafka-engine-producer').producer({
      idempotent: false,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    return new SourceProducer(producer, topic, partitions);
  }

  async send(ids: readonly number[], broken: ReadonlySet<number>): Promise<ProducedChunk> {
    const messages = ids.map((id) => ({
      partition: id % this.partitions,
      key: key(id, broken.has(id)),
      value: broken.has(id) ? brokenValue(id) : messageValue(id),
    }));
    try {
      const answers = await withTimeout(
        this.producer.send({ topic: this.topic, acks: -1, messages }),
        SEND_DEADLINE_MS,
        'a send to the brokers',
      );
      return readAnswers(ids, this.partitions, answers);
    } catch {
      return { acknowledged: [], unknown: ids, offsets: [] };
    }
  }

  /** Waits for its sends still retrying in the background (bounded): the audit must see where they landed. */
  async close(): Promise<void> {
    await withTimeout(this.producer.disconnect(), 3 * CLIENT_DEADLINE_MS, "the producer's disconnect").catch(
      () => undefined,
    );
  }
}

/** What the group committed per partition (the next offset it will read); absent where it committed nothing. */
export const committedOffsets = (
  description: ClusterDescription,
  group: string,
  topic: string,
): Promise<Map<number, number>> => settled(() => readCommittedOffsets(description, group, topic));

async function readCommittedOffsets(
  description: ClusterDescription,
  group: string,
  topic: string,
): Promise<Map<number, number>> {
  const admin = kafkaClient(description, 'chaos-kafka-engine-audit').admin();
  await admin.connect();
  try {
    const [listed] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    return new Map(
      (listed?.partitions ?? [])
        .filter((partition) => Number(partition.offset) >= 0)
        .map((partition) => [partition.partition, Number(partition.offset)]),
    );
  } finally {
    await admin.disconnect();
  }
}

/**
 * `read`, tried again for a while when it fails: after a broker's heal its partitions may still
 * be electing leaders, which a read right then meets as an error, not as an answer.
 */
async function settled<T>(read: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + SETTLE_DEADLINE_MS;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** How many messages the topic holds (every partition's end minus its start). */
export const topicSize = (description: ClusterDescription, topic: string): Promise<number> =>
  settled(() => readTopicSize(description, topic));

async function readTopicSize(description: ClusterDescription, topic: string): Promise<number> {
  const admin = kafkaClient(description, 'chaos-kafka-engine-audit').admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce(
      (sum, partition) => sum + Number(partition.high) - Number(partition.low),
      0,
    );
  } finally {
    await admin.disconnect();
  }
}

/**
 * Reads the whole topic with a group of its own, from the start to each partition's end: what
 * the engine had to consume, each message with its partition and offset.
 */
export async function auditTopic(description: ClusterDescription, topic: string): Promise<TopicMessage[]> {
  const kafka = kafkaClient(description, 'chaos-kafka-engine-audit');
  const total = await topicSize(description, topic);
  const found: TopicMessage[] = [];
  if (total === 0) return found;
  const consumer = kafka.consumer({ groupId: `${topic}-audit`, maxWaitTimeInMs: 500 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let done: () => void = () => undefined;
    const complete = new Promise<void>((resolve) => {
      done = resolve;
    });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const key = message.key?.toString() ?? '';
        const broken = key.startsWith('b');
        found.push({ partition, offset: Number(message.offset), id: Number(broken ? key.slice(1) : key), broken });
        if (found.length >= total) done();
      },
    });
    await withTimeout(complete, AUDIT_DEADLINE_MS, 'the audit of the topic').catch(() => undefined);
  } finally {
    await consumer.disconnect();
  }
  if (found.length < total)
    throw new HarnessError(
      'KAFKA_AUDIT_SHORT',
      `the topic ${topic} holds ${total} messages, and its audit read ${found.length} in ${AUDIT_DEADLINE_MS / 1000} s`,
    );
  return found;
}
