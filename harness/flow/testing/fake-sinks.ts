import type {
  AtLeastOnceSink,
  AtMostOnceAck,
  AtMostOnceSink,
  BatchingSink,
  BatchingSinkState,
  InsertAttempt,
  OutboxBatch,
  SinkContext,
  SinkMessage,
} from '../../../sinks/api.ts';
import { cutBatches } from '../../../sinks/batching/batch-cutter.ts';
import { type BatchToken, dedupToken, type DynamicParameters, type SinkSpec } from '../../../sinks/index.ts';
import type { ShardName } from '../../../sinks/domain/shard-name.ts';
import { RendezvousRouter } from '../../../sinks/routing/rendezvous-router.ts';
import { routingKeyFor } from '../../../sinks/routing/routing-key.ts';
import { currentFingerprints, targetSlotsOf } from '../../../sinks/topology/spec-topology.ts';
import { checkTopologyGuard, type TopologyFingerprints } from '../../../sinks/topology/topology-guard.ts';
import { HarnessError } from '../../base/index.ts';
import type { FakeTable } from './fake-table.ts';

/** Faults the fakes inject: the next `failInserts` attempts fail (nothing lands); the next `refuseReconfigures` reconfigurations and `failCuts` cuts throw. */
export interface FakeFaults {
  failInserts: number;
  refuseReconfigures?: number;
  failCuts?: number;
}

/**
 * Fast-tier sinks behind `sinks/api.ts`: the real pure parts (batch cutter, rendezvous routing,
 * fingerprints from the spec, the topology guard) over a `FakeTable`. One attempt per INSERT, no
 * retries: a failed attempt gives up, which is what the runtime must survive, and the instance
 * refuses every later write, as the real ones do.
 */
class FakeWriter {
  private queries = 0;
  private poisoned = false;

  constructor(
    readonly spec: SinkSpec,
    private readonly context: SinkContext,
    private readonly table: FakeTable,
    private readonly faults: FakeFaults,
    /** At-most-once never poisons: it acknowledges the message with an error and goes on. */
    private readonly poisons = true,
  ) {}

  /** A cut the fault arms throws, as a batching sink with a bug in `cut` would. */
  failCutIfArmed(): void {
    if ((this.faults.failCuts ?? 0) <= 0) return;
    this.faults.failCuts = (this.faults.failCuts ?? 0) - 1;
    throw new HarnessError('FAKE_CUT_FAILED', 'fake: cut failed');
  }

  /** A reconfiguration the fault arms throws, as a sink with a bug in `reconfigure` would. */
  refuseReconfigureIfArmed(): void {
    if ((this.faults.refuseReconfigures ?? 0) <= 0) return;
    this.faults.refuseReconfigures = (this.faults.refuseReconfigures ?? 0) - 1;
    throw new HarnessError('FAKE_RECONFIGURE_REFUSED', 'fake: reconfigure refused');
  }

  /** beforeInsert → (fault | insert) → insertSent → afterInsert, like one HTTP INSERT. */
  async insert(
    batch: number,
    shard: ShardName | null,
    messages: readonly SinkMessage[],
    tokens?: { batchToken: BatchToken; dedup: string },
  ): Promise<void> {
    if (this.poisoned)
      throw new HarnessError('SINK_POISONED', 'fake: this instance gave up an insert and refuses every later write');
    this.queries += 1;
    const attempt: InsertAttempt = {
      sink: this.spec.name,
      batch,
      shard,
      endpoint: `fake-${shard ?? 'unsharded'}:${this.spec.parameters.port}`,
      queryId: `${this.spec.name}-${this.context.partition}-${process.pid}-${this.queries}`,
      messageIds: messages.map((message) => message.id),
      attempt: 1,
      ...(tokens ? { batchToken: tokens.batchToken, dedupToken: tokens.dedup as BatchToken } : {}),
    };
    const startedAt = Date.now();
    await this.context.observer.beforeInsert?.(attempt);
    if (this.faults.failInserts > 0) {
      this.faults.failInserts -= 1;
      const error = { message: 'fake: injected insert failure', code: 'FAKE_INSERT_FAILED' };
      await this.context.observer.afterInsert?.(attempt, { outcome: 'failed', startedAt, endedAt: Date.now(), error });
      this.poisoned = this.poisons;
      throw new HarnessError('SINK_INSERT_GAVE_UP', 'Giving up insert into ClickHouse');
    }
    this.table.insert({ shard, token: tokens?.dedup, ids: attempt.messageIds });
    await this.context.observer.insertSent?.(attempt, {
      bytes: messages.reduce((total, message) => total + message.byteSize, 0),
    });
    await this.context.observer.afterInsert?.(attempt, { outcome: 'ok', startedAt, endedAt: Date.now() });
  }
}

export class FakeBatchingSink implements BatchingSink {
  readonly kind = 'batching';
  private readonly writer: FakeWriter;
  private readonly router: RendezvousRouter | undefined;

  constructor(
    public spec: SinkSpec,
    context: SinkContext,
    table: FakeTable,
    faults: FakeFaults,
  ) {
    this.writer = new FakeWriter(spec, context, table, faults);
    const { topology } = spec.parameters;
    this.router = topology.form === 'shard_hosts' ? new RendezvousRouter(topology.shards.keys()) : undefined;
  }

  async init(state: BatchingSinkState): Promise<TopologyFingerprints> {
    // A fake target is a plain table: its identity is database, table, port and hosts.
    const metadata = new Map(
      [...targetSlotsOf(this.spec.parameters).keys()].map((slot) => [slot, { engine: 'plain' as const }]),
    );
    const current = currentFingerprints(this.spec.parameters, metadata);
    const [oldest] = state.undelivered;
    const refusal = checkTopologyGuard({
      persisted: state.fingerprints,
      current,
      undelivered: oldest && { count: state.undelivered.length, oldestBound: oldest.token },
    });
    if (refusal) throw refusal;
    return current;
  }

  cut(messages: readonly SinkMessage[], firstBatchNumber: number): OutboxBatch[] {
    this.writer.failCutIfArmed();
    const limits = {
      max_rows_per_batch: this.spec.dynamic_parameters.max_rows_per_batch ?? 1000,
      max_bytes_per_batch: this.spec.dynamic_parameters.max_bytes_per_batch ?? 5242880,
    };
    return cutBatches(messages, limits).map((batch, i) => ({
      number: firstBatchNumber + i,
      token: batch.token,
      messages: batch.messages,
    }));
  }

  async deliver(batch: OutboxBatch): Promise<void> {
    const router = this.router;
    if (!router) {
      await this.writer.insert(batch.number, null, batch.messages, {
        batchToken: batch.token,
        dedup: dedupToken(batch.token),
      });
      return;
    }
    const keys = this.spec.parameters.sharding_key_columns;
    for (const shard of router.shards) {
      const messages = batch.messages.filter(
        (message) => router.route(routingKeyFor(message.id, message.row, keys)) === shard,
      );
      if (messages.length > 0)
        await this.writer.insert(batch.number, shard, messages, {
          batchToken: batch.token,
          dedup: dedupToken(batch.token, shard),
        });
    }
  }

  async reconfigure(dynamic: DynamicParameters): Promise<void> {
    this.writer.refuseReconfigureIfArmed();
    this.spec = { ...this.spec, dynamic_parameters: dynamic };
  }

  async close(): Promise<void> {}
}

export class FakeAtLeastOnceSink implements AtLeastOnceSink {
  readonly kind = 'at-least-once';
  private readonly writer: FakeWriter;

  constructor(
    public spec: SinkSpec,
    context: SinkContext,
    table: FakeTable,
    faults: FakeFaults,
  ) {
    this.writer = new FakeWriter(spec, context, table, faults);
  }

  writeEpoch(epoch: number, messages: readonly SinkMessage[]): Promise<void> {
    return this.writer.insert(epoch, null, messages);
  }

  async reconfigure(dynamic: DynamicParameters): Promise<void> {
    this.writer.refuseReconfigureIfArmed();
    this.spec = { ...this.spec, dynamic_parameters: dynamic };
  }

  async close(): Promise<void> {}
}

export class FakeAtMostOnceSink implements AtMostOnceSink {
  readonly kind = 'at-most-once';
  private readonly writer: FakeWriter;

  constructor(
    public spec: SinkSpec,
    context: SinkContext,
    table: FakeTable,
    faults: FakeFaults,
  ) {
    this.writer = new FakeWriter(spec, context, table, faults, false);
  }

  /** One INSERT per message (its seq as the attempt's batch); a failed one is acked with an error, never retried. */
  async write(messages: readonly SinkMessage[]): Promise<readonly AtMostOnceAck[]> {
    const acks: AtMostOnceAck[] = [];
    for (const message of messages) {
      const seq = Number(message.id.split('-')[2]);
      acks.push(
        await this.writer.insert(seq, null, [message]).then(
          () => 'delivered' as const,
          () => 'acked-with-error' as const,
        ),
      );
    }
    return acks;
  }

  /** Ordered mode only: every write has finished by the time it resolves. */
  async drain(): Promise<void> {}

  async reconfigure(dynamic: DynamicParameters): Promise<void> {
    this.writer.refuseReconfigureIfArmed();
    this.spec = { ...this.spec, dynamic_parameters: dynamic };
  }

  async close(): Promise<void> {}
}
