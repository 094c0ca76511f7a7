import { execFile } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../base/index.ts';
import { eventsOfType, insertAttempts, mergeHistory, readHistory } from './history-reader.ts';
import { HistoryWriter } from './history-writer.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flow-history-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const attempt = { sink: 'events', partition: 0, batch: 1, attempt: 1 };

describe('history writer and reader', () => {
  it('stamps events (time, writer, pid, seq) and merges writers in time order', () => {
    const a = HistoryWriter.open(dir, 'a');
    const b = HistoryWriter.open(dir, 'b');
    a.append({ type: 'delivered', sink: 'events', partition: 0, batch: 1, token: '1-0-3' });
    b.append({ type: 'delivered', sink: 'events', partition: 1, batch: 1, token: '1-1-3' });
    a.append({ type: 'delivered', sink: 'events', partition: 0, batch: 2, token: '1-0-7' });
    a.close();
    b.close();
    const { events, tornLines } = readHistory(dir);
    expect(tornLines).toEqual([]);
    expect(events.map((event) => [event.writer, event.seq])).toEqual([
      ['a', 1],
      ['b', 1],
      ['a', 2],
    ]);
    expect(events[0]).toMatchObject({ type: 'delivered', pid: process.pid, at: expect.any(Number) });
    expect(events.every((event, i) => i === 0 || event.at >= (events[i - 1]?.at ?? 0))).toBe(true);

    const merged = join(dir, 'merged.jsonl');
    mergeHistory(dir, merged);
    expect(readHistory(merged).events).toEqual(events);
  });

  it('pairs attempts: completed ones carry their outcome, one cut short by a crash is unknown (sent or not)', () => {
    const writer = HistoryWriter.open(dir, 'w');
    const invoke = (queryId: string) =>
      writer.append({
        type: 'insert-invoke',
        ...attempt,
        queryId,
        shard: null,
        endpoint: 'ch-1:8123',
        messageIds: ['1-0-0'],
      });
    invoke('q1');
    writer.append({ type: 'insert-sent', ...attempt, queryId: 'q1', bytes: 612 });
    writer.append({ type: 'insert-complete', ...attempt, queryId: 'q1', outcome: 'ok', startedAt: 1, endedAt: 2 });
    invoke('q2');
    writer.append({
      type: 'insert-complete',
      ...attempt,
      queryId: 'q2',
      outcome: 'failed',
      startedAt: 3,
      endedAt: 4,
      error: { message: 'refused' },
    });
    invoke('q3');
    writer.append({ type: 'insert-sent', ...attempt, queryId: 'q3' });
    invoke('q4');
    writer.close();
    const records = insertAttempts(readHistory(dir).events);
    expect(records.map((record) => [record.invoke.queryId, record.outcome, record.sent, record.sentBytes])).toEqual([
      ['q1', 'ok', true, 612],
      ['q2', 'failed', false, undefined],
      ['q3', 'unknown', true, undefined],
      ['q4', 'unknown', false, undefined],
    ]);
  });

  it('reports a torn last line instead of reading it, and refuses a line that is not a flow event', () => {
    const writer = HistoryWriter.open(dir, 'w');
    writer.append({ type: 'delivered', sink: 'events', partition: 0, batch: 1, token: '1-0-3' });
    writer.close();
    appendFileSync(writer.path, '{"type":"delivered","sink":"ev');
    const history = readHistory(dir);
    expect(history.events).toHaveLength(1);
    expect(history.tornLines).toEqual([{ file: writer.path, text: '{"type":"delivered","sink":"ev' }]);

    appendFileSync(
      join(dir, 'x.jsonl'),
      '{"type":"delivered","at":1,"writer":"x","seq":1}\n{"type":"mystery","at":2,"writer":"x","seq":2}\n',
    );
    expect(() => readHistory(dir)).toThrow(
      expect.objectContaining({
        code: 'FLOW_HISTORY_INVALID',
        message: expect.stringMatching(/x\.jsonl:2 is not a flow event/),
      }),
    );
  });

  it('refuses a validated event naming no sink class; a launch keeps the name its spec spelled', () => {
    appendFileSync(
      join(dir, 'x.jsonl'),
      '{"type":"worker-launch","at":1,"writer":"x","seq":1,"sinkClass":"NYT::NFlow::TClickHouseBatchingSink"}\n' +
        '{"type":"worker-start","at":2,"writer":"x","seq":2,"sinkClass":"ClickhouseBatchingSink"}\n',
    );
    expect(() => readHistory(dir)).toThrow(
      expect.objectContaining({
        code: 'STORED_SINK_CLASS_INVALID',
        message: expect.stringMatching(/x\.jsonl:2 \(worker-start\) names the sink class "ClickhouseBatchingSink"/),
      }),
    );
  });

  it('refuses a nemesis event naming a fault the catalogue does not have', () => {
    appendFileSync(
      join(dir, 'nemesis.jsonl'),
      '{"type":"fault-missed","at":1,"writer":"nemesis","seq":1,"fault":"reset_peer","description":"d","reason":"r"}\n' +
        '{"type":"fault-start","at":2,"writer":"nemesis","seq":2,"fault":"reset-peer","window":1}\n',
    );
    expect(() => readHistory(dir)).toThrow(
      expect.objectContaining({
        code: 'STORED_FAULT_TYPE_INVALID',
        message: expect.stringMatching(/nemesis\.jsonl:2 \(fault-start\) names the fault "reset-peer"/),
      }),
    );
  });

  it('refuses a fault-start recording a proof the checker does not know (it would drop a requirement)', () => {
    appendFileSync(
      join(dir, 'nemesis.jsonl'),
      '{"type":"fault-start","at":1,"writer":"nemesis","seq":1,"fault":"latency","window":1,"proofs":["links-active"]}\n' +
        '{"type":"fault-start","at":2,"writer":"nemesis","seq":2,"fault":"latency","window":2,"proofs":["link-active"]}\n',
    );
    expect(() => readHistory(dir)).toThrow(
      expect.objectContaining({
        code: 'STORED_FAULT_PROOF_INVALID',
        message: expect.stringMatching(/nemesis\.jsonl:2 \(fault-start\) records the proofs \["link-active"\]/),
      }),
    );
  });

  it('keeps every line whole when several processes append large events at once', async () => {
    const script = resolve(PROJECT_ROOT, 'harness/flow/testing/append-history.ts');
    const run = promisify(execFile);
    await Promise.all(
      ['p1', 'p2', 'p3'].map((name) =>
        run(process.execPath, ['--import', 'tsx', script, dir, name, '150'], { cwd: PROJECT_ROOT }),
      ),
    );
    const { events, tornLines } = readHistory(dir);
    expect(tornLines).toEqual([]);
    for (const name of ['p1', 'p2', 'p3']) {
      const mine = eventsOfType(events, 'epoch-commit').filter((event) => event.writer === name);
      expect(mine.map((event) => event.seq)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
      expect(mine.every((event) => event.messageIds.length === 600)).toBe(true);
    }
    expect(readFileSync(join(dir, 'p1.jsonl'), 'utf8').length).toBeGreaterThan(150 * 4096);
  });

  it('refuses writer names that are not plain file names', () => {
    expect(() => HistoryWriter.open(dir, '../escape')).toThrow(
      expect.objectContaining({ code: 'FLOW_HISTORY_WRITER' }),
    );
  });
});
