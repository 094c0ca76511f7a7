import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { SinkError, hasErrorCode } from '../errors.ts';
import { defaultSinkLogger } from '../log.ts';
import { sessionWarner } from '../session/session-warnings.ts';
import type { InsertAttempt, SinkContext } from '../api.ts';
import type { SinkClassName } from '../domain/sink-class-name.ts';
import { encodeRowBinary } from '../insert/row-binary-encoder.ts';
import { insertStatement } from '../insert/insert-statement.ts';
import { runInsert, type InsertJob, type InsertRunOptions, type InsertRunResult } from '../insert/insert-runner.ts';
import { sendAttempt, type InsertRequest } from '../insert/send-attempt.ts';
import { InsertGaveUpError, SinkInstanceHealth } from '../retry/insert-give-up.ts';
import { retryPolicyOf } from '../retry/retry-policy.ts';
import { insertSettingsFor } from '../settings/insert-settings.ts';
import { SINK_CLASSES, type SinkClassDescriptor } from '../sink-classes.ts';
import type { DynamicParameters, SinkSpec } from '../spec/sink-spec.ts';
import { WriteSession } from '../session/write-session.ts';
import { UNSHARDED_TARGET, type TargetSlot } from '../topology/topology-guard.ts';

/**
 * What every class shares: the lazily opened write session (kept until `close`), the current
 * dynamic parameters, the INSERT path (encode, settings, attempts with hooks, retries), the
 * poisoned-instance state and shutdown. The classes differ only in what they insert when.
 */
export class SinkCore {
  readonly descriptor: SinkClassDescriptor;
  readonly log: Logger;
  readonly health = new SinkInstanceHealth();
  private current: DynamicParameters;
  private session: Promise<WriteSession> | undefined;
  private readonly lifetime = new AbortController();

  constructor(
    readonly spec: SinkSpec,
    readonly context: SinkContext,
    sinkClass: SinkClassName,
  ) {
    if (spec.sink_class_name !== sinkClass) {
      throw new SinkError(
        'SINK_CLASS_MISMATCH',
        `A ${spec.sink_class_name} spec cannot build a ${sinkClass}; use createSink(spec, context)`,
      );
    }
    this.descriptor = SINK_CLASSES[sinkClass];
    this.current = spec.dynamic_parameters;
    const bindings = { sink: spec.name, sinkClass, partition: context.partition };
    this.log = context.logger ? context.logger.child(bindings) : defaultSinkLogger(bindings);
  }

  get dynamic(): DynamicParameters {
    return this.current;
  }

  get closed(): boolean {
    return this.lifetime.signal.aborted;
  }

  /** Throws `SINK_CLOSED` after `close`, `SINK_POISONED` after a give-up. */
  assertWritable(): void {
    this.lifetime.signal.throwIfAborted();
    this.health.assertWritable();
  }

  /** The session, opened on first use; a failed start is not cached, so the next write tries again. */
  openSession(): Promise<WriteSession> {
    this.lifetime.signal.throwIfAborted();
    this.session ??= WriteSession.open({
      spec: this.spec,
      dynamic: this.current,
      env: this.context.env,
      streamSchema: this.context.streamSchema,
      ...(this.context.resolveEndpoint ? { resolveEndpoint: this.context.resolveEndpoint } : {}),
      random: this.context.random ?? Math.random,
      log: this.log,
      warn: sessionWarner(this.log, this.context.onWarning),
    }).catch((error: unknown) => {
      this.session = undefined;
      throw error;
    });
    return this.session;
  }

  /**
   * One INSERT with retries. A value the column cannot take fails before anything is sent, as a
   * permanent give-up. Throws `InsertGaveUpError` on give-up (the caller decides about poisoning).
   */
  async insert(job: InsertJob, options: InsertRunOptions = {}): Promise<InsertRunResult> {
    const session = await this.openSession();
    const request: InsertRequest = {
      statement: insertStatement(
        session.database,
        session.table,
        session.plan.sent.map((column) => column.name),
      ),
      body: encodeOrGiveUp(job, () => encodeRowBinary(job.messages, session.plan.sent)),
      settings: insertSettingsFor(this.descriptor, this.current, job.dedupToken),
    };
    const transport = {
      rotation: session.rotation.bind(session),
      send: (slot: TargetSlot, host: string, body: InsertRequest, attempt: InsertAttempt) =>
        sendAttempt(session.client(slot, host), body, attempt, this.context.observer),
    };
    return runInsert(
      job,
      request,
      transport,
      {
        sink: this.spec.name,
        partition: this.context.partition,
        port: this.spec.parameters.port,
        policy: retryPolicyOf(this.current),
        signal: this.lifetime.signal,
        log: this.log,
      },
      options,
    );
  }

  /** Waits `ms`; closing the sink ends the wait by throwing its close reason. */
  async wait(ms: number): Promise<void> {
    await delay(ms, undefined, { signal: this.lifetime.signal }).catch((error: unknown) => {
      this.lifetime.signal.throwIfAborted();
      throw error;
    });
  }

  /** As `insert`, and a give-up poisons the instance: every later write is refused. */
  async insertOrPoison(job: InsertJob): Promise<void> {
    try {
      await this.insert(job);
    } catch (error) {
      if (error instanceof InsertGaveUpError) this.health.poison(error);
      throw error;
    }
  }

  async reconfigure(dynamic: DynamicParameters): Promise<void> {
    this.current = dynamic;
    const session = await this.session?.catch(() => undefined);
    await session?.reconfigure(dynamic);
  }

  /** Aborts retry waits, closes the clients (an INSERT in flight ends unknown) and refuses later writes. */
  async close(): Promise<void> {
    if (!this.closed)
      this.lifetime.abort(
        new SinkError(
          'SINK_CLOSED',
          `Sink ${this.spec.name} (partition ${this.context.partition}) is closed; create a new instance to write again`,
        ),
      );
    const session = await this.session?.catch(() => undefined);
    await session?.close();
  }
}

function encodeOrGiveUp(job: InsertJob, encode: () => Buffer): Buffer {
  try {
    return encode();
  } catch (error) {
    if (!hasErrorCode(error, 'SINK_VALUE_INVALID')) throw error;
    throw new InsertGaveUpError(
      {
        errorClass: 'permanent',
        reason: 'a value does not fit its column; nothing was sent',
        attempts: 0,
        ...(job.dedupToken === undefined ? {} : { dedupToken: job.dedupToken }),
        ...(job.slot === UNSHARDED_TARGET ? {} : { shard: job.slot }),
      },
      error,
    );
  }
}
