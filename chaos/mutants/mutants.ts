import {
  type AnySink,
  type AtLeastOnceSink,
  type AtMostOnceSink,
  type BatchingSink,
  type BatchToken,
  dedupToken,
  type DedupToken,
  formatMessageId,
  loadSinkClasses,
  type OutboxBatch,
  parseMessageId,
  type SinkConstructor,
} from '../../sinks/index.ts';

/**
 * Deliberately broken sinks built by wrapping the real ones (the other kind edits the source:
 * `source-mutants.ts`): each breaks one rule the guarantee rests on, to prove that the same
 * checkers that pass the real sinks flag each breakage in the right category. They are never
 * registered in the production registry.
 */
export const WRAPPER_MUTANTS = {
  'token-changes-on-replay': {
    category: 'duplicated',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    why: 'A token built from something that differs between processes (a per-process counter, a random salt, the worker id) is unique and stable within one process, so every test that retries in place passes; only a replay after a restart carries another token, and ClickHouse inserts the batch again.',
  },
  'shard-suffix-dropped': {
    category: 'token-not-as-owed',
    classes: ['ShardedClickHouseBatchingSink'],
    why: "The batch token alone already looks unique; the `:<shard>` suffix seems redundant until two shard names point at one table, where the second shard's part of a batch is dropped as a duplicate of the first (lost rows, whenever a batch has rows for both names).",
  },
  'topology-guard-disabled': {
    category: 'refusal-missing',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    why: '`init` given the state without its undelivered batches (read lazily, or filtered by a query that only looks at the current topology) never sees a backlog, so the guard never refuses and replays old batches under a new routing.',
  },
  'at-most-once-reinserts': {
    category: 'duplicated',
    classes: ['AtMostOnceClickHouseSink'],
    why: 'Retrying a message that was acknowledged with an error feels like the robust thing to do; for a message whose INSERT reached the server it breaks the one promise at-most-once makes.',
  },
  'at-least-once-commits-first': {
    category: 'lost',
    classes: ['AtLeastOnceClickHouseSink'],
    why: 'Firing the INSERT without awaiting it (a missing `await`) lets the epoch commit before the rows are written; a crash or a failed INSERT then loses an epoch that is already acknowledged.',
  },
} as const;

export type WrapperMutantName = keyof typeof WRAPPER_MUTANTS;

export function isWrapperMutantName(name: string): name is WrapperMutantName {
  return name in WRAPPER_MUTANTS;
}

/** `shard-suffix-dropped`: every shard of a batch gets the bare batch token. */
export async function suffixDroppedShardedSink(): Promise<SinkConstructor> {
  const { ShardedClickHouseBatchingSink } = await loadSinkClasses();
  return class SuffixDroppedShardedSink extends ShardedClickHouseBatchingSink {
    protected override shardToken(batchToken: BatchToken): DedupToken {
      return dedupToken(batchToken);
    }
  };
}

const SALT = 1 + Math.floor(Math.random() * 1_000_000);

function saltedToken(token: BatchToken): BatchToken {
  const { partition, seq } = parseMessageId(token);
  return formatMessageId({ generation: SALT, partition, seq }) as unknown as BatchToken;
}

function batching(sink: BatchingSink, mutant: WrapperMutantName): BatchingSink {
  if (mutant === 'token-changes-on-replay') {
    return Object.assign(Object.create(sink) as BatchingSink, {
      deliver: (batch: OutboxBatch) => sink.deliver({ ...batch, token: saltedToken(batch.token) }),
    });
  }
  if (mutant === 'topology-guard-disabled') {
    return Object.assign(Object.create(sink) as BatchingSink, {
      init: (state: Parameters<BatchingSink['init']>[0]) => sink.init({ ...state, undelivered: [] }),
    });
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
export function mutate(sink: AnySink, mutant: WrapperMutantName): AnySink {
  switch (sink.kind) {
    case 'batching':
      return batching(sink, mutant);
    case 'at-most-once':
      return mutant === 'at-most-once-reinserts' ? atMostOnce(sink) : sink;
    case 'at-least-once':
      return mutant === 'at-least-once-commits-first' ? atLeastOnce(sink) : sink;
  }
}
