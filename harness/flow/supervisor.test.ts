import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventsOfType, insertAttempts } from './history/index.ts';
import { sourceConfig } from './source/source-config.ts';
import { FlowSupervisor } from './supervisor.ts';
import { countIds, FileTable } from './testing/fake-table.ts';
import { WorkerExitedError, WorkerRefusedError } from './worker-errors.ts';

// Fast tier, real processes: the supervisor forks real workers that SIGKILL themselves at the
// armed point, but their sinks are fakes over a JSONL table. This proves the crash/restart
// machinery and the history; the guarantees themselves are proven on the real cluster.

let dir: string;
let table: FileTable;
let supervisor: FlowSupervisor;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flow-supervisor-'));
  table = new FileTable(join(dir, 'table.jsonl'));
  supervisor = new FlowSupervisor({
    dir,
    source: sourceConfig({ seed: 11, partitions: 1, messagesPerEpoch: 6 }),
    factoryModule: 'harness/flow/testing/fake-sink-factory.ts',
    env: { FLOW_FAKE_TABLE: table.path },
  });
});
afterEach(async () => {
  await supervisor.close();
  rmSync(dir, { recursive: true, force: true });
});

const spec = (sink_class_name: string, parameters: object = { host: 'ch-1' }) => ({
  sink_class_name,
  name: 'events',
  parameters: { table: 'events', ...parameters },
  ...(sink_class_name.includes('Batching') ? { dynamic_parameters: { max_rows_per_batch: 4 } } : {}),
});

describe('FlowSupervisor with fake sinks in real worker processes', { timeout: 60_000 }, () => {
  it('a worker SIGKILLs itself at during-insert; the restart replays the batch under its token and the history shows the cut-short attempt as unknown', async () => {
    const batching = spec('ClickHouseBatchingSink');
    // Delivery paused until the drain: both epochs are committed before the first insert, every run.
    const first = await supervisor.launch({
      spec: batching,
      crash: { point: 'during-insert', batch: 2 },
      deliveryPaused: true,
    });
    await first.runEpochs(2);
    await expect(first.drain()).rejects.toBeInstanceOf(WorkerExitedError);
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const second = await supervisor.launch({ spec: batching });
    await second.drain();
    expect(await second.stop()).toEqual({ code: 0, signal: null });

    const { events } = await supervisor.close();
    expect(eventsOfType(events, 'crash')).toEqual([
      expect.objectContaining({ point: 'during-insert', partition: 0, batch: 2, worker: first.id }),
    ]);
    const cutShort = insertAttempts(events).filter((attempt) => attempt.outcome === 'unknown');
    expect(cutShort.map((attempt) => [attempt.invoke.batch, attempt.sent])).toEqual([[2, true]]);
    expect(eventsOfType(events, 'worker-launch').map((event) => event.restart)).toEqual([false, true]);
    expect(eventsOfType(events, 'state-snapshot')[1]).toMatchObject({
      nextSeq: 12,
      undelivered: [
        { number: 2, token: '1-0-5' },
        { number: 3, token: '1-0-9' },
        { number: 4, token: '1-0-11' },
      ],
    });
    const counts = countIds(table);
    expect(counts.size).toBe(12);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(existsSync(join(dir, 'history.jsonl'))).toBe(true);
  });

  it('at-least-once: a crash after the insert and before the commit really duplicates the epoch on restart', async () => {
    const atLeastOnce = spec('AtLeastOnceClickHouseSink');
    const first = await supervisor.launch({ spec: atLeastOnce, crash: { point: 'after-insert-before-state' } });
    await expect(first.runEpochs(1)).rejects.toBeInstanceOf(WorkerExitedError);
    const second = await supervisor.launch({ spec: atLeastOnce });
    expect((await second.runEpochs(1))[0]).toEqual([
      expect.objectContaining({ status: 'committed', epoch: 1, fromSeq: 0, toSeq: 6 }),
    ]);
    expect([...countIds(table).values()]).toEqual(Array(6).fill(2));
  });

  it('refuses a spec naming a class the worker’s registry lacks before the state file exists', async () => {
    const launch = supervisor.launch({
      spec: spec('ShardedClickHouseBatchingSink', { shard_hosts: { a: ['ch-a'] } }),
      without: ['ShardedClickHouseBatchingSink'],
    });
    await expect(launch).rejects.toBeInstanceOf(WorkerRefusedError);
    await expect(launch).rejects.toMatchObject({
      stage: 'spec',
      refusalCode: 'SINK_SPEC_INVALID',
      message: expect.stringMatching(/class-not-registered/),
    });
    expect(existsSync(supervisor.storePath)).toBe(false);
  });

  it('a gate holds the next INSERT before its request and after its outcome until each phase is opened', async () => {
    const worker = await supervisor.launch({ spec: spec('AtLeastOnceClickHouseSink') });
    const gate = await worker.armGate();
    let written = false;
    const writing = worker.runEpochs(1).then(() => {
      written = true;
    });
    const attempt = await gate.held;
    expect(attempt).toMatchObject({ gate: gate.id, partition: 0, attempt: 1 });
    expect(
      insertAttempts(supervisor.readHistory().events).find((a) => a.invoke.queryId === attempt.queryId)?.complete,
    ).toBeUndefined();
    gate.openRequest();
    const ended = await gate.ended;
    expect(ended.outcome).toBe('ok');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(written, 'the epoch waits for the outcome phase').toBe(false);
    gate.openOutcome();
    await writing;
    const gated = eventsOfType(supervisor.readHistory().events, 'insert-gated');
    expect(gated.map((event) => [event.phase, event.opened])).toEqual([
      ['request', true],
      ['outcome', true],
    ]);
    expect(countIds(table).size).toBe(6);
  });

  it('a disarmed gate holds nothing, and a gate of a dead worker rejects', async () => {
    const worker = await supervisor.launch({ spec: spec('AtLeastOnceClickHouseSink') });
    const disarmed = await worker.armGate();
    await disarmed.disarm();
    await worker.runEpochs(1);
    expect(eventsOfType(supervisor.readHistory().events, 'insert-gated')).toEqual([]);
    const orphan = await worker.armGate();
    await worker.kill();
    await expect(orphan.held).rejects.toBeInstanceOf(WorkerExitedError);
  });
});
