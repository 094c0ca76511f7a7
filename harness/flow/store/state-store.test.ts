import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  BatchToken,
  OutboxBatch,
  RoutingFingerprint,
  SinkMessage,
  TargetFingerprint,
  TargetSlot,
  TopologyFingerprints,
} from '../../../sinks/index.ts';
import { messageId } from '../../../sinks/domain/message-id.ts';
import { StateStore } from './state-store.ts';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flow-store-'));
  path = join(dir, 'state.sqlite');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const message = (seq: number, extra: Record<string, unknown> = {}): SinkMessage => ({
  id: messageId(`1-0-${seq}`),
  row: { id: `1-0-${seq}`, seq, ...extra } as SinkMessage['row'],
  byteSize: 10,
});
const batch = (number: number, seqs: number[]): OutboxBatch => ({
  number,
  token: `1-0-${Math.max(...seqs)}` as BatchToken,
  messages: seqs.map((seq) => message(seq)),
});
const fingerprints: TopologyFingerprints = {
  routing: 'unsharded' as RoutingFingerprint,
  targets: new Map<TargetSlot, TargetFingerprint>([['(unsharded)', '00000000000000aa' as TargetFingerprint]]),
};
const epoch1 = {
  sink: 'events',
  sinkClass: 'ClickHouseBatchingSink' as const,
  partition: 0,
  epoch: 1,
  fromSeq: 0,
  toSeq: 4,
};
const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('StateStore', () => {
  it('starts a partition at seq 0, epoch 0, batch 1 and commits an epoch with its outbox and fingerprints', () => {
    const store = StateStore.open(path);
    expect(store.progress('events', 0)).toEqual({ nextSeq: 0, epoch: 0, nextBatch: 1 });
    store.commitEpoch({ ...epoch1, batches: [batch(1, [0, 1]), batch(2, [2, 3])], fingerprints });
    expect(store.progress('events', 0)).toEqual({ nextSeq: 4, epoch: 1, nextBatch: 3 });
    expect(store.undelivered('events', 0)).toEqual([batch(1, [0, 1]), batch(2, [2, 3])]);
    expect(store.fingerprints('events', 0)).toEqual(fingerprints);
    store.markDelivered('events', 0, 1);
    expect(store.undeliveredSummary('events', 0)).toEqual({ count: 1, batches: [{ number: 2, token: '1-0-3' }] });
    store.close();
    const reopened = StateStore.open(path);
    expect(reopened.progress('events', 0)).toEqual({ nextSeq: 4, epoch: 1, nextBatch: 3 });
    expect(reopened.undelivered('events', 0).map((b) => b.number)).toEqual([2]);
    reopened.close();
  });

  it('keys state by sink name, not class: a class switch that keeps the name keeps the state', () => {
    const store = StateStore.open(path);
    store.commitEpoch({ ...epoch1, batches: [batch(1, [0, 1, 2, 3])], fingerprints });
    expect(store.progress('events', 0).nextSeq).toBe(4);
    store.commitEpoch({
      ...epoch1,
      sinkClass: 'ShardedClickHouseBatchingSink',
      epoch: 2,
      fromSeq: 4,
      toSeq: 6,
      batches: [],
    });
    expect(store.progress('events', 0)).toEqual({ nextSeq: 6, epoch: 2, nextBatch: 2 });
    expect(store.progress('other', 0).nextSeq).toBe(0);
    expect(store.partitions('events')).toEqual([0]);
    store.close();
  });

  it('round-trips bigint, Date and byte values exactly', () => {
    const store = StateStore.open(path);
    const odd: OutboxBatch = {
      number: 1,
      token: '1-0-0' as BatchToken,
      messages: [message(0, { big: 2n ** 63n, at: new Date(5), raw: new Uint8Array([0, 255]), none: null })],
    };
    store.commitEpoch({ ...epoch1, toSeq: 1, batches: [odd] });
    expect(store.undelivered('events', 0)).toEqual([odd]);
    store.close();
  });

  it('leaves nothing behind when a transaction fails half-way (out-of-sequence batch, unencodable value)', () => {
    const store = StateStore.open(path);
    expect(() => store.commitEpoch({ ...epoch1, batches: [batch(1, [0, 1]), batch(3, [2, 3])], fingerprints })).toThrow(
      expect.objectContaining({ code: 'FLOW_STATE_CONFLICT' }),
    );
    const poisoned: OutboxBatch = {
      number: 2,
      token: '1-0-3' as BatchToken,
      messages: [message(3, { bad: Number.NaN })],
    };
    expect(() => store.commitEpoch({ ...epoch1, batches: [batch(1, [0, 1, 2]), poisoned], fingerprints })).toThrow(
      expect.objectContaining({ code: 'FLOW_STATE_ENCODE' }),
    );
    expect(store.progress('events', 0)).toEqual({ nextSeq: 0, epoch: 0, nextBatch: 1 });
    expect(store.undelivered('events', 0)).toEqual([]);
    expect(store.fingerprints('events', 0)).toBeUndefined();
    store.close();
  });

  it('refuses an epoch that does not continue the stored progress and out-of-order delivery marks', () => {
    const store = StateStore.open(path);
    store.commitEpoch({ ...epoch1, batches: [batch(1, [0, 1]), batch(2, [2, 3])] });
    expect(() => store.commitEpoch({ ...epoch1, batches: [] })).toThrow(/another worker runs this partition/);
    expect(() => store.markDelivered('events', 0, 2)).toThrow(/oldest undelivered batch is 1/);
    store.close();
  });

  it('keeps at-most-once output messages pending with their epoch until their INSERT starts, across a reopen', () => {
    const store = StateStore.open(path);
    const amo = { ...epoch1, sinkClass: 'AtMostOnceClickHouseSink' as const, batches: [] };
    store.commitEpoch({ ...amo, output: [0, 1, 2, 3].map((seq) => message(seq)) });
    expect(store.takeOutput('events', 0, [messageId('1-0-1'), messageId('1-0-0')])).toBe(true);
    // Taken already (by another worker, or before): all or nothing, so 1-0-2 stays pending.
    expect(store.takeOutput('events', 0, [messageId('1-0-0'), messageId('1-0-2')])).toBe(false);
    store.close();
    const reopened = StateStore.open(path);
    expect(reopened.pendingOutput('events', 0)).toEqual([{ epoch: 1, messages: [message(2), message(3)] }]);
    reopened.commitEpoch({ ...amo, epoch: 2, fromSeq: 4, toSeq: 6, output: [message(4), message(5)] });
    expect(reopened.pendingOutput('events', 0).map((p) => [p.epoch, p.messages.length])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(reopened.pendingOutput('events', 1)).toEqual([]);
    reopened.close();
  });

  describe('refuses a file that is not its own and leaves it untouched', () => {
    const expectUntouched = (code: string, pattern: RegExp) => {
      const before = digest(path);
      expect(() => StateStore.open(path)).toThrow(
        expect.objectContaining({ code, message: expect.stringMatching(pattern) }),
      );
      expect(digest(path)).toBe(before);
      expect(existsSync(`${path}-wal`)).toBe(false);
    };

    it('random bytes', () => {
      writeFileSync(path, Buffer.from('this is a text file, not a database\n'.repeat(20)));
      expectUntouched(
        'FLOW_STATE_NOT_SQLITE',
        /is not an SQLite database \(corrupt or foreign\); it was left untouched/,
      );
    });

    it('another program’s SQLite database', () => {
      const foreign = new Database(path);
      foreign.exec(
        'CREATE TABLE accounts (id INTEGER PRIMARY KEY, balance INTEGER); INSERT INTO accounts VALUES (1, 100);',
      );
      foreign.close();
      expectUntouched('FLOW_STATE_FOREIGN', /application_id 0x00000000, expected 0x464c4f57/);
    });

    it('a state file from another schema version', () => {
      StateStore.open(path).close();
      const db = new Database(path);
      db.pragma('journal_mode = DELETE');
      db.pragma('user_version = 7');
      db.close();
      expectUntouched('FLOW_STATE_SCHEMA_VERSION', /schema version 7, this runtime reads version 2/);
    });

    it('our header over damaged pages', () => {
      const store = StateStore.open(path);
      store.commitEpoch({ ...epoch1, batches: [batch(1, [0, 1, 2, 3])] });
      store.close();
      const bytes = readFileSync(path);
      bytes.fill(0xa5, 4096);
      writeFileSync(path, bytes);
      expectUntouched('FLOW_STATE_CORRUPT', /contents are damaged/);
    });
  });
});
