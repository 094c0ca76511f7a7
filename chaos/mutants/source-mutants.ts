import type { AnomalyKind } from '../../properties/checkers/index.ts';
import { SINK_CLASS_NAMES, type SinkClassName } from '../../sinks/index.ts';

/**
 * A bug as a person would ship it: one edit to the sinks' source, applied to a copy of the tree
 * the sink workers then run from (`mutated-tree.ts`) — the way a broken sink from outside the
 * repository reaches the harness. `find` must occur exactly once in `file`, so a refactor that
 * moves the code fails loudly instead of leaving a mutant that changes nothing.
 */
export interface SourceMutant {
  readonly category: AnomalyKind;
  readonly classes: readonly SinkClassName[];
  readonly file: string;
  readonly find: string;
  readonly replace: string;
  /** Why a real engineer could write this. */
  readonly why: string;
}

export const SOURCE_MUTANTS = {
  'unknown-outcome-as-ok': {
    category: 'lost',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink', 'AtLeastOnceClickHouseSink'],
    file: 'sinks/insert/insert-runner.ts',
    find: "if (report.result.outcome === 'ok') return { delivered: true, attempts: number };",
    replace: "if (report.result.outcome !== 'failed') return { delivered: true, attempts: number };",
    why: 'Reading "failed" as the only bad outcome is natural: the INSERT was sent and nothing said it failed, and most of the time the row is indeed there. When the request was cut before the server saw it, the batch (or epoch) is marked written and its rows are gone.',
  },
  'reset-means-not-started': {
    category: 'duplicated',
    classes: ['AtMostOnceClickHouseSink'],
    file: 'sinks/insert/attempt-outcome.ts',
    find: "  return { outcome: 'unknown', started: true };\n}",
    replace: "  return { outcome: 'unknown', started: false };\n}",
    why: 'A connection reset before any answer looks like the request never went anywhere, so the at-most-once sink believes it may send the message again. When the reset cut only the answer, the server had committed it: the message lands twice.',
  },
  'sharding-key-ignored': {
    category: 'misplaced',
    classes: ['ShardedClickHouseBatchingSink'],
    file: 'sinks/classes/slot-routing.ts',
    find: 'const keyOf = (message: SinkMessage) => routingKeyFor(message.id, message.row, keyColumns);',
    replace: 'const keyOf = (message: SinkMessage) => routingKeyFor(message.id, message.row, []);',
    why: 'The message id is the documented default routing key, and a refactor that threads it through can easily drop the sharding_key_columns argument: every row still lands somewhere plausible, exactly once, just not on the shard its key names, and co-location is silently gone.',
  },
  'token-only-with-async-insert': {
    category: 'token-not-as-owed',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    file: 'sinks/settings/insert-settings.ts',
    find: 'if (token !== undefined) settings.insert_deduplication_token = token;',
    replace: 'if (token !== undefined && dynamic.async_insert) settings.insert_deduplication_token = token;',
    why: 'The seed names the token in the same sentence as async_insert_deduplicate, so sending it only with async inserts reads like the rule. On a replicated table nobody notices: identical replayed blocks are still dropped by content hash, until a block is cut differently or the window is off.',
  },
  'async-insert-not-deduplicated': {
    category: 'async-insert-not-as-owed',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    file: 'sinks/settings/insert-settings.ts',
    find: '    if (sinkClass.usesDedupToken) settings.async_insert_deduplicate = 1;\n',
    replace: '',
    why: 'A synchronous INSERT with a token is deduplicated without further ado, so the token alone looks like enough, and a test cluster that runs async inserts synchronously agrees. On a server with an async insert queue, the INSERTs of a spec with async_insert on are never deduplicated: every replay after an unknown outcome lands twice.',
  },
  'epoch-bound-as-batch-token': {
    category: 'lost',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    file: 'sinks/classes/batching-sink.ts',
    find: 'return batches.map((batch, i) => ({ number: firstBatchNumber + i, token: batch.token, messages: batch.messages }));',
    replace:
      'return batches.map((batch, i) => ({ number: firstBatchNumber + i, token: batches.at(-1)?.token ?? batch.token, messages: batch.messages }));',
    why: 'An epoch-level design ("the epoch\'s largest id is the dedup key") carried into per-batch code gives every batch of an epoch the same token. ClickHouse then drops every batch after the first as a duplicate: the rows of all but one batch per epoch never land.',
  },
  'routing-fingerprint-with-hosts': {
    category: 'refusal-unexpected',
    classes: ['ShardedClickHouseBatchingSink'],
    file: 'sinks/topology/spec-topology.ts',
    find: 'return { sharded: true, shards: [...topology.shards.keys()], shardingKeyColumns: parameters.sharding_key_columns };',
    replace:
      "return { sharded: true, shards: [...topology.shards].map(([name, hosts]) => `${name}=${hosts.join(',')}`) as never, shardingKeyColumns: parameters.sharding_key_columns };",
    why: 'Fingerprinting shard_hosts as written, hosts and all, is the obvious first cut of "the routing layout". Routing never looks at hosts, but the guard now sees a new topology whenever an operator replaces a dead host or drops a replica from a shard, and refuses to start while batches are undelivered.',
  },
  'utf16-length-as-byte-length': {
    category: 'unexpected',
    classes: SINK_CLASS_NAMES,
    file: 'sinks/insert/row-binary-encoder.ts',
    find: "if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');",
    replace: "if (typeof value === 'string') return value.length;",
    why: "A JavaScript string's length reads like its size, and every test string of ASCII agrees with it. RowBinary wants the UTF-8 byte count: a text with an accented letter or an emoji is written cut to its length in UTF-16 units. Every row still lands, once, under its own id, so a harness that counts ids passes it; the stored payload is not the one the source produced.",
  },
  'bigint-key-as-text': {
    category: 'misplaced',
    classes: ['ShardedClickHouseBatchingSink', 'AtLeastOnceClickHouseSink', 'AtMostOnceClickHouseSink'],
    file: 'sinks/routing/routing-key.ts',
    find: "if (typeof value === 'bigint') return tagged('i', value.toString());",
    replace: "if (typeof value === 'bigint') return tagged('s', value.toString());",
    why: 'A bigint has no JSON form, so turning it into its text on the way to the hash looks harmless, and every test key column is a String or a small number. The routing now tells a 64-bit key from the same value given as a number: rows keyed by an Int64 or UInt64 column go to another shard than the documented scheme (and any other reader of it) sends them, and co-location with the rows keyed the same way through a number is gone.',
  },
  'score-over-longest-name-buffer': {
    category: 'misplaced',
    classes: ['ShardedClickHouseBatchingSink', 'AtLeastOnceClickHouseSink', 'AtMostOnceClickHouseSink'],
    file: 'sinks/routing/rendezvous-router.ts',
    find: 'const score = xxhash64(scored.subarray(0, 4 + key.byteLength + suffix.byteLength));',
    replace: 'const score = xxhash64(scored);',
    why: 'Scoring every shard in one buffer sized for the longest name saves an allocation per shard, and hashing the buffer rather than the bytes just written changes nothing while every shard name has the same length, as s1 and s2 do on every test cluster. Once names differ in length, a shorter name is scored with the tail of a longer one (or zeros) behind it: keys go to other shards than the documented rendezvous scheme sends them, steadily, so replays stay where the first attempt went and nothing is lost or duplicated.',
  },
  'datetime-rounded-not-floored': {
    category: 'unexpected',
    classes: SINK_CLASS_NAMES,
    file: 'sinks/insert/row-binary-encoder.ts',
    find: 'const units = value instanceof Date ? Math.floor(value.getTime() / unitMs) : value;',
    replace: 'const units = value instanceof Date ? Math.round(value.getTime() / unitMs) : value;',
    why: 'Rounding a JS Date to the nearest second reads like the careful choice, and every test timestamp taken on a whole second agrees with it. DateTime keeps whole seconds by truncation (ClickHouse itself drops the fraction): a time given with 500 ms or more is stored a second late, and a Date given after noon a day late. Every row lands once under its own id; only a harness that compares each stored value with the source sees it, and only on a table with a Date or DateTime column.',
  },
  'row-values-by-position': {
    category: 'give-up-without-attempt',
    classes: SINK_CLASS_NAMES,
    file: 'sinks/insert/row-binary-encoder.ts',
    find: 'for (const writer of writers) writer.write(out, message.row[writer.name], message.id);',
    replace:
      'const values = Object.values(message.row); writers.forEach((writer, i) => writer.write(out, values[i], message.id));',
    why: "A row arrives with its values in the stream schema's order, and taking them by position instead of looking each up by name saves a lookup per value. The planned columns are in the table's order, which is the stream's on every table whose DDL was written from the stream's schema, as every test table's was. On a table that declares its columns in another order, or has a column the stream leaves out in between, values meet other columns' types: the sink refuses valid rows as invalid values and gives their batches up without sending them (and where the types happen to fit, values land in the wrong columns).",
  },
  'server-errors-permanent': {
    category: 'give-up-early',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink', 'AtLeastOnceClickHouseSink'],
    file: 'sinks/retry/error-classification.ts',
    find: "return Object.hasOwn(TRANSIENT_CLICKHOUSE_CODES, code) ? 'transient' : 'unclassified';",
    replace: "return Object.hasOwn(TRANSIENT_CLICKHOUSE_CODES, code) ? 'transient' : 'permanent';",
    why: 'A server that answered with an exception "will answer the same again", so treating every server error as permanent looks like it saves pointless retries. The seed gives those errors max_insert_attempts attempts: a table that is briefly read-only or over its part limit makes the sink give up on the first one.',
  },
  'poison-only-on-permanent': {
    category: 'write-after-give-up',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink', 'AtLeastOnceClickHouseSink'],
    file: 'sinks/classes/sink-core.ts',
    find: 'if (error instanceof InsertGaveUpError) this.health.poison(error);',
    replace:
      "if (error instanceof InsertGaveUpError && error.details.errorClass === 'permanent') this.health.poison(error);",
    why: 'Only a broken table or config seems worth stopping the instance for; a retry budget that ran out looks like bad luck the next write may not have. The seed poisons the instance after every give-up, so the operator, not the next write, decides when to go on.',
  },
  'give-up-swallowed': {
    category: 'lost',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    file: 'sinks/classes/batching-sink.ts',
    find: '        messages: part.messages,\n      });\n    }',
    replace: '        messages: part.messages,\n      }).catch(() => undefined);\n    }',
    why: 'One batch that cannot be written must not block the ones behind it, the reasoning goes, so the give-up is logged and delivery moves on. The runtime then marks the batch delivered: its rows never reach ClickHouse, and no replay will offer them again.',
  },
  'lost-then-gave-up': {
    category: 'lost',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    file: 'sinks/classes/sink-core.ts',
    find: '      settings: insertSettingsFor(this.descriptor, this.current, job.dedupToken),\n    };\n',
    replace:
      '      settings: { ...insertSettingsFor(this.descriptor, this.current, job.dedupToken), ...(job.batch > 2 ? { insert_quorum: 5 } : {}) },\n    };\n    if (job.batch === 2) return { delivered: true, attempts: 0 };\n',
    why: 'Two slips that cover for each other. A shortcut takes a batch for already written and acknowledges it without its INSERT; later a quorum larger than the shard (5 of 2 replicas) makes the server refuse every INSERT after it, so the sink retries max_insert_attempts times and gives up, as the seed allows, and the restarted instance gives up again. The run ends with the partition given up, and a checker that excuses every missing row of such a partition calls the acknowledged, never-written batch held back instead of lost.',
  },
  'retries-one-past-budget': {
    category: 'give-up-late',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink', 'AtLeastOnceClickHouseSink'],
    file: 'sinks/retry/retry-policy.ts',
    find: "if (errorClass === 'unclassified' && attempts >= policy.maxInsertAttempts) {",
    replace: "if (errorClass === 'unclassified' && attempts > policy.maxInsertAttempts) {",
    why: "Read as the number of retries, max_insert_attempts allows one attempt more than the seed does: the first try plus max_insert_attempts retries. Every give-up still comes, with the seed's text and after an unclassified error, one INSERT late against a server that was already refusing.",
  },
  'single-attempt-read-as-unset': {
    category: 'give-up-late',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink', 'AtLeastOnceClickHouseSink'],
    file: 'sinks/retry/retry-policy.ts',
    find: 'return { maxInsertAttempts: dynamic.max_insert_attempts, retryBackoffMs: dynamic.retry_backoff };',
    replace:
      'return { maxInsertAttempts: 1 + (dynamic.max_insert_attempts - 1 || 9), retryBackoffMs: dynamic.retry_backoff };',
    why: "Retry loops are usually written in retries after the first try, and `|| 9` (the seed's ten attempts) reads as the default for a value nobody set. Zero retries is falsy too: max_insert_attempts = 1, the operator's way to say 'never retry an unclassified error', gets ten attempts, while every other budget is exact.",
  },
  'transient-failures-not-counted': {
    category: 'give-up-late',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink', 'AtLeastOnceClickHouseSink'],
    file: 'sinks/retry/retry-policy.ts',
    find: 'return { ...decideRetry(errorClass, this.attempts, this.policy), errorClass };',
    replace: 'return { ...decideRetry(errorClass, this.counts.unclassified, this.policy), errorClass };',
    why: 'Transient failures are retried without limit and max_insert_attempts bounds the unclassified ones, so counting only the unclassified failures against the budget reads like keeping the two rules apart. The seed counts every attempt in total: an INSERT whose first attempt lost its connection and whose retries then met a refusing server makes one attempt more than the budget allows before it gives up — a path no single fault reaches, since every retry after a transport fault runs on a healed link.',
  },
  'delivered-mark-without-partition': {
    category: 'lost',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    file: 'harness/flow/store/state-store.ts',
    find: `        .prepare('UPDATE outbox SET delivered = 1, delivered_at = ? WHERE sink = ? AND partition = ? AND batch = ?')
        .run(at, sink, partition, batch);`,
    replace: `        .prepare('UPDATE outbox SET delivered = 1, delivered_at = ? WHERE sink = ? AND batch = ?')
        .run(at, sink, batch);`,
    why: "The outbox row is found by its batch number, and batch numbers look unique: every test with one partition agrees. With several partitions each counts its own batches from 1, so marking one partition's batch delivered marks the same number of every other partition delivered too, and a batch still waiting in another partition's outbox (behind an unknown outcome, or not yet sent) is never delivered.",
  },
  'output-taken-before-crash-point': {
    category: 'pending-dropped',
    classes: ['AtMostOnceClickHouseSink'],
    file: 'harness/flow/runtime/output-messages.ts',
    find: `        await base.beforeInsert?.(attempt);
        const fresh = attempt.messageIds.filter((id) => this.read.has(id) && !this.started.has(id));
        if (fresh.length === 0) return;
        if (!this.store.takeOutput(this.sink, this.partition, fresh))
          throw new HarnessError(
            'FLOW_OUTPUT_FENCED',
            \`Messages \${fresh[0]}… of sink '\${this.sink}' partition \${this.partition} are no longer pending in output_messages: another worker took them, so this one must not send them\`,
          );
        for (const id of fresh) this.started.add(id);
`,
    replace: `        const fresh = attempt.messageIds.filter((id) => this.read.has(id) && !this.started.has(id));
        if (fresh.length > 0 && !this.store.takeOutput(this.sink, this.partition, fresh))
          throw new HarnessError(
            'FLOW_OUTPUT_FENCED',
            \`Messages \${fresh[0]}… of sink '\${this.sink}' partition \${this.partition} are no longer pending in output_messages: another worker took them, so this one must not send them\`,
          );
        for (const id of fresh) this.started.add(id);
        await base.beforeInsert?.(attempt);
`,
    why: "Fencing first looks strictly safer: take the messages out of output_messages before anything else, so a zombie is refused before it even records an attempt. But the attempt's crash point and gate come after the take, so a worker that dies there has sent nothing and its messages are gone from the store, where the seed keeps them pending until the INSERT starts.",
  },
  'output-messages-not-kept': {
    category: 'pending-dropped',
    classes: ['AtMostOnceClickHouseSink'],
    file: 'harness/flow/runtime/start-partition.ts',
    find: 'new AtMostOncePartition(deps, sink, output, isOrderedMode(spec.parameters))',
    replace: 'new AtMostOncePartition(deps, sink, output, false)',
    why: 'At most once allows loss, and the epoch commit already holds the input progress, so keeping a second copy of the messages until their INSERT starts looks like waste. A crash after the commit then drops an epoch that no INSERT ever carried, where the seed keeps it pending and delivers it after the restart.',
  },
  'plain-merge-tree-unwarned': {
    category: 'warning-missing',
    classes: SINK_CLASS_NAMES,
    file: 'sinks/session/metadata-check.ts',
    find: "if (acceptance.warning) warnings.push({ kind: 'no-block-dedup', message: acceptance.warning });",
    replace:
      "if (acceptance.warning && input.slots.length > 1) warnings.push({ kind: 'no-block-dedup', message: acceptance.warning });",
    why: 'A warning per shard looks like noise, so someone keeps it only for the multi-shard layouts where it "matters". A single-host plain MergeTree target then starts silently, and the operator who chose an exactly-once class never learns that it writes at least once.',
  },
  'dedup-window-checked-on-reconfigure-only': {
    category: 'warning-missing',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    file: 'sinks/session/write-session.ts',
    find: '      session.checkDedupWindow();\n',
    replace: '',
    why: 'The window comparison depends on replay_horizon, a dynamic parameter, so it reads naturally as something to do when the dynamic section changes. A sink that starts against a short window then never says that its exactly-once does not cover a late replay.',
  },
  'fresh-token-after-two-unknowns': {
    category: 'duplicated',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink'],
    file: 'sinks/insert/insert-runner.ts',
    find: '    const decision = attempts.fail(report.error);\n',
    replace: `    const decision = attempts.fail(report.error);
    const owed = request.settings.insert_deduplication_token;
    if (report.result.outcome === 'unknown' && attempts.failures.transient === 2 && owed !== undefined)
      request = { ...request, settings: { ...request.settings, insert_deduplication_token: \`\${owed}:\${number}\` } };
`,
    why: 'ClickHouse silently drops an INSERT whose token it already holds, so after a second unknown outcome on one batch an engineer suspects the token itself: the first attempt may have left it in the dedup log without its part, and every retry under it would be dropped for ever. The fallback retries under a fresh token to make sure the rows land. One unknown outcome is still retried under the owed token, so every test that faults one attempt passes; when the first attempt had in fact committed, the retry under the fresh token writes the batch a second time.',
  },
  'unknown-status-written-locally': {
    category: 'lost',
    classes: ['ClickHouseBatchingSink', 'ShardedClickHouseBatchingSink', 'AtLeastOnceClickHouseSink'],
    file: 'sinks/insert/insert-runner.ts',
    find: "if (report.result.outcome === 'ok') return { delivered: true, attempts: number };",
    replace:
      "if (report.result.outcome === 'ok' || /written locally/.test(report.result.error?.message ?? '')) return { delivered: true, attempts: number };",
    why: 'UNKNOWN_STATUS_OF_INSERT says "Data was written locally" and that ClickHouse verifies the part itself, so retrying looks like asking for a duplicate: a sink that takes the words at face value marks the batch written. When the part never reached Keeper, ClickHouse drops it, and the batch is gone. The quorum path\'s 319 (part committed, quorum unverified) reads differently and always lands, so only a commit lost inside the server\'s own window shows it.',
  },
  'retry-backoff-read-as-seconds': {
    category: 'stalled',
    classes: SINK_CLASS_NAMES,
    file: 'sinks/retry/retry-policy.ts',
    find: 'return { maxInsertAttempts: dynamic.max_insert_attempts, retryBackoffMs: dynamic.retry_backoff };',
    replace: 'return { maxInsertAttempts: dynamic.max_insert_attempts, retryBackoffMs: dynamic.retry_backoff * 1000 };',
    why: "The seed's examples write retry_backoff as seconds ('1s'), and the policy gets a bare number, so converting it to milliseconds looks like the careful thing to do; but the spec reader already returns milliseconds. Every retry then waits 1000 times too long: the 20-150 ms of a chaos spec become 20-150 s (the default a quarter of an hour). Nothing is lost or written twice: after a timeout or a cut answer the batch is simply not retried until long after the cluster is healthy again, and a sink whose retries are minutes apart looks hung.",
  },
} as const satisfies Readonly<Record<string, SourceMutant>>;

export type SourceMutantName = keyof typeof SOURCE_MUTANTS;

export function isSourceMutantName(name: string): name is SourceMutantName {
  return name in SOURCE_MUTANTS;
}
