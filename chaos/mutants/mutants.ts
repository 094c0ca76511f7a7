import type { AnySink, AtLeastOnceSink, AtMostOnceSink, BatchingSink, OutboxBatch } from '../../sinks/api.ts';
import { ShardedClickHouseBatchingSink } from '../../sinks/classes/batching-sink.ts';
import { dedupToken, type BatchToken, type DedupToken } from '../../sinks/domain/batch-token.ts';
import { formatMessageId, parseMessageId } from '../../sinks/domain/message-id.ts';

/**
 * Deliberately broken sinks: each breaks one rule the guarantee rests on. They exist only to
 * prove that the same checkers that pass the real sinks flag each breakage in the right
 * category. They are never registered in the production registry.
 */
export const MUTANTS = {
  /** The batch token changes between a delivery and its replay (salted per worker process). */
  'token-changes-on-replay': { category: 'duplicated', classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'] },
  /** The sharded token loses its `:<shard>` suffix: two shard names on one table collide. */
  'shard-suffix-dropped': { category: 'lost', classes: ['ShardedClickHouseBatchingSink'] },
  /** `init` never sees the undelivered batches, so the topology guard never refuses. */
  'topology-guard-disabled': { category: 'refusal-missing', classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'] },
  /** At-most-once inserts again a message whose INSERT started and failed. */
  'at-most-once-reinserts': { category: 'duplicated', classes: ['AtMostOnceClickHouseSink'] },
  /** At-least-once reports the epoch written before the INSERT finished: the epoch commits first. */
  'at-least-once-commits-first': { category: 'lost', classes: ['AtLeastOnceClickHouseSink'] },
} as const;

export type MutantName = keyof typeof MUTANTS;

export function isMutantName(name: string): name is MutantName {
  return name in MUTANTS;
}

/** `shard-suffix-dropped`: every shard of a batch gets the bare batch token. */
export class SuffixDroppedShardedSink extends ShardedClickHouseBatchingSink {
  protected override shardToken(batchToken: BatchToken): DedupToken {
    return dedupToken(batchToken);
  }
}

const SALT = 1 + Math.floor(Math.random() * 1_000_000);

function saltedToken(token: BatchToken): BatchToken {
  const { partition, seq } = parseMessageId(token);
  return formatMessageId({ generation: SALT, partition, seq }) as unknown as BatchToken;
}

function batching(sink: BatchingSink, mutant: MutantName): BatchingSink {
  if (mutant === 'token-changes-on-replay') {
    return Object.assign(Object.create(sink) as BatchingSink, {
      deliver: (batch: OutboxBatch) => sink.deliver({ ...batch, token: saltedToken(batch.token) }),
    });
  }
  if (mutant === 'topology-guard-disabled') {
    return Object.assign(Object.create(sink) as BatchingSink, { init: (state: Parameters<BatchingSink['init']>[0]) => sink.init({ ...state, undelivered: [] }) });
  }
  return sink;
}

function atMostOnce(sink: AtMostOnceSink): AtMostOnceSink {
  return Object.assign(Object.create(sink) as AtMostOnceSink, {
    write: async (messages: Parameters<AtMostOnceSink['write']>[0]) => {
      const acks = [...(await sink.write(messages))];
      for (const [index, ack] of acks.entries()) {
        const message = messages[index];
        if (ack === 'acked-with-error' && message !== undefined) acks[index] = (await sink.write([message]))[0] ?? ack;
      }
      return acks;
    },
  });
}

function atLeastOnce(sink: AtLeastOnceSink): AtLeastOnceSink {
  return Object.assign(Object.create(sink) as AtLeastOnceSink, {
    writeEpoch: async (epoch: number, messages: Parameters<AtLeastOnceSink['writeEpoch']>[1]) => {
      void sink.writeEpoch(epoch, messages).catch(() => undefined);
    },
  });
}

/**
 * Wraps a real sink into the named mutant (a class the mutant does not concern stays as it is;
 * `shard-suffix-dropped` is a subclass, built by the factory).
 */
export function mutate(sink: AnySink, mutant: MutantName): AnySink {
  switch (sink.kind) {
    case 'batching':
      return batching(sink, mutant);
    case 'at-most-once':
      return mutant === 'at-most-once-reinserts' ? atMostOnce(sink) : sink;
    case 'at-least-once':
      return mutant === 'at-least-once-commits-first' ? atLeastOnce(sink) : sink;
  }
}
