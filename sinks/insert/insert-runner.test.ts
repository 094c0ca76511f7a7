import { ClickHouseError } from '@clickhouse/client';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SinkError } from '../errors.ts';
import type { InsertAttempt } from '../api.ts';
import { batchTokenOf, dedupToken } from '../domain/batch-token.ts';
import { messageId } from '../domain/message-id.ts';
import { shardName } from '../domain/shard-name.ts';
import { EndpointRotation } from '../endpoints/endpoint-rotation.ts';
import { InsertGaveUpError } from '../retry/insert-give-up.ts';
import { UNSHARDED_TARGET } from '../topology/topology-guard.ts';
import { runInsert, type InsertJob, type InsertRunContext, type InsertTransport } from './insert-runner.ts';
import type { AttemptReport } from './send-attempt.ts';

const ok: AttemptReport = { result: { outcome: 'ok', startedAt: 0, endedAt: 1 }, started: true };
const fail = (error: unknown, started = false): AttemptReport => ({
  result: { outcome: started ? 'unknown' : 'failed', startedAt: 0, endedAt: 1 },
  started,
  error,
});
const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
const memory = new ClickHouseError({
  message: 'Code: 241. DB::Exception: Memory limit exceeded',
  code: '241',
  type: 'MEMORY_LIMIT_EXCEEDED',
});
const tooLong = new SinkError('SINK_VALUE_INVALID', 'a value longer than its FixedString column');

const ids = ['1-0-1', '1-0-2'].map(messageId);
const token = batchTokenOf(ids);
const job: InsertJob = {
  slot: shardName('s1'),
  batch: 4,
  batchToken: token,
  dedupToken: dedupToken(token, shardName('s1')),
  messages: ids.map((id) => ({ id, row: {}, byteSize: 1 })),
};
const request = { statement: 'INSERT', body: Buffer.alloc(0), settings: {} };

function harness(script: AttemptReport[], hosts = ['a', 'b', 'c'], maxInsertAttempts = 3) {
  const attempts: InsertAttempt[] = [];
  const sleeps: number[] = [];
  const transport: InsertTransport = {
    rotation: () => rotation,
    send: async (_slot, host, _request, attempt) => {
      expect(attempt.endpoint).toBe(`${host}:8123`);
      attempts.push(attempt);
      const next = script.shift();
      if (!next) throw new Error('script ran out');
      return next;
    },
  };
  const rotation = new EndpointRotation(hosts, 'ordered_round_robin', Math.random);
  const abort = new AbortController();
  const context: InsertRunContext = {
    sink: 'sink',
    partition: 2,
    port: 8123,
    policy: { maxInsertAttempts, retryBackoffMs: 250 },
    signal: abort.signal,
    log: pino({ level: 'silent' }),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  };
  return { attempts, sleeps, transport, context, abort };
}

describe('runInsert', () => {
  it('describes each attempt for the observer', async () => {
    const { attempts, transport, context } = harness([ok]);
    await expect(runInsert(job, request, transport, context)).resolves.toEqual({ delivered: true, attempts: 1 });
    expect(attempts).toEqual([
      {
        sink: 'sink',
        batch: 4,
        batchToken: '1-0-2',
        dedupToken: '1-0-2:s1',
        shard: 's1',
        endpoint: 'a:8123',
        queryId: expect.stringMatching(/^sink\.p2\.b4\.s1\.a1\./),
        messageIds: ids,
        attempt: 1,
      },
    ]);
    const unsharded = harness([ok]);
    await runInsert(
      { slot: UNSHARDED_TARGET, batch: 1, messages: job.messages },
      request,
      unsharded.transport,
      unsharded.context,
    );
    expect(unsharded.attempts[0]).toMatchObject({ shard: null });
    expect(unsharded.attempts[0]).not.toHaveProperty('dedupToken');
  });

  it('retries transient failures without limit, failing over round-robin after retry_backoff', async () => {
    const { attempts, sleeps, transport, context } = harness(
      [fail(refused), fail(refused), fail(refused), fail(refused), ok],
      ['a', 'b', 'c'],
      1,
    );
    await expect(runInsert(job, request, transport, context)).resolves.toEqual({ delivered: true, attempts: 5 });
    expect(attempts.map((a) => `${a.endpoint}#${a.attempt}`)).toEqual([
      'a:8123#1',
      'b:8123#2',
      'c:8123#3',
      'a:8123#4',
      'b:8123#5',
    ]);
    expect(sleeps).toEqual([250, 250, 250, 250]);
  });

  it('gives up on an unclassified failure once max_insert_attempts attempts were made in total, transient ones included', async () => {
    const { attempts, transport, context } = harness([fail(refused), fail(memory, true), fail(memory, true)]);
    const error = await runInsert(job, request, transport, context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsertGaveUpError);
    expect((error as InsertGaveUpError).message).toBe('Giving up insert into ClickHouse');
    expect((error as InsertGaveUpError).details).toMatchObject({
      errorClass: 'unclassified',
      attempts: 3,
      dedupToken: '1-0-2:s1',
      shard: 's1',
    });
    expect((error as InsertGaveUpError).cause).toBe(memory);
    expect(attempts).toHaveLength(3);
  });

  it('gives up on a permanent error at once', async () => {
    const { attempts, sleeps, transport, context } = harness([fail(tooLong)]);
    await expect(runInsert(job, request, transport, context)).rejects.toMatchObject({
      code: 'SINK_INSERT_GAVE_UP',
      details: { errorClass: 'permanent', attempts: 1 },
    });
    expect(attempts).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('stops without retrying when mayRetry says no (at-most-once after the INSERT started)', async () => {
    const { attempts, transport, context } = harness([
      fail(refused),
      fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), true),
      ok,
    ]);
    const result = await runInsert(job, request, transport, context, { mayRetry: (report) => !report.started });
    expect(result).toMatchObject({
      delivered: false,
      attempts: 2,
      last: { started: true, result: { outcome: 'unknown' } },
    });
    expect(attempts).toHaveLength(2);
  });

  it('ends a retry wait with the close reason when the sink closes', async () => {
    const { transport, context, abort } = harness([fail(refused)]);
    const closed = new SinkError('SINK_CLOSED', 'closed');
    const waiting = runInsert(job, request, transport, {
      ...context,
      sleep: (_ms, signal) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('AbortError')))),
    });
    setTimeout(() => abort.abort(closed), 5);
    await expect(waiting).rejects.toBe(closed);
  });
});
