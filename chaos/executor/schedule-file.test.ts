import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/index.ts';
import { step } from '../../properties/schedule/index.ts';
import { onCluster, readScheduleFile, runInputOf, scheduleReplayCommand, writeScheduleFile } from './schedule-file.ts';

/** A cluster started anew: the same hosts, another client port. */
const description = (port: number) =>
  ({
    shards: [1, 2].map((s) => ({
      name: `s${s}`,
      replicas: [1, 2].map((r) => ({ name: `s${s}r${r}`, http: `http://127.10.${s}.${r}:${port}` })),
    })),
  }) as unknown as ClusterDescription;
const spec = (parameters: Record<string, unknown>): RawSinkSpec => ({
  sink_class_name: 'ShardedClickHouseBatchingSink',
  name: 'chaos_sink',
  parameters: { port: 26427, database: 'chaos', table: 'events_rep', ...parameters },
  dynamic_parameters: { write_timeout: 4000 },
});
const sharded = spec({ shard_hosts: { s1: ['127.10.1.1', '127.10.1.2'], s2: ['127.10.2.1', '127.10.2.2'] } });
const input = {
  workload: {
    partitions: 2,
    messagesPerEpoch: 4,
    keySpace: 3,
    payloadBytes: { min: 4, max: 8 },
    typedColumns: [],
    tableShuffle: 0,
  },
  spec: sharded,
  sourceSeed: 7,
  schedule: [
    step.holdAndWrite(2, sharded, 'before'),
    step.restartWithSpec(spec({ host: '127.10.2.1' }), 'moved', true),
  ],
};

describe('a stored run input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'schedule-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is read back from the run directory as it was written', () => {
    writeScheduleFile(dir, input, true);
    const stored = readScheduleFile(join(dir, 'schedule.json'));
    expect(runInputOf(stored)).toStrictEqual(input);
    expect(stored.serverDedupOff).toBe(true);
  });

  it("runs on the replay cluster's client port, every spec of it, nothing else changed", () => {
    const replayed = onCluster(input, description(31000));
    const ports = [replayed.spec, ...replayed.schedule.map((each) => ('spec' in each ? each.spec : undefined))].map(
      (each) => each?.parameters.port,
    );
    expect(ports).toEqual([31000, 31000, 31000]);
    expect({ ...replayed.spec, parameters: { ...replayed.spec.parameters, port: 26427 } }).toStrictEqual(input.spec);
    expect(replayed.schedule.map((each) => each.kind)).toEqual(['hold-and-write', 'restart-with-spec']);
  });

  it('refuses a schedule naming a host the cluster does not have, rather than guessing', () => {
    const elsewhere = { ...input, spec: spec({ host: '10.0.0.9' }) };
    expect(() => onCluster(elsewhere, description(31000))).toThrow(
      /the stored schedule names 10\.0\.0\.9, which this cluster does not have/,
    );
  });
});

describe("a violated run's schedule replay command", () => {
  it('names the class, the scenario and the schedule.json of the run it replays', () => {
    expect(
      scheduleReplayCommand({
        sinkClass: 'ClickHouseBatchingSink',
        scenario: 'unknown-outcome',
        scenarioDir: 'reports/20261202-055234-69f4/ClickHouseBatchingSink__unknown-outcome',
        runIndex: 3,
      }),
    ).toBe(
      'npm run chaos -- --sink ClickHouseBatchingSink --scenario unknown-outcome --schedule reports/20261202-055234-69f4/ClickHouseBatchingSink__unknown-outcome/run-3/schedule.json',
    );
  });

  it('quotes a path a shell would split or expand, so the line still pastes', () => {
    const command = scheduleReplayCommand({
      sinkClass: 'AtMostOnceClickHouseSink',
      scenario: 'sink-crash',
      scenarioDir: "/tmp/my reports/it's $HOME/AtMostOnceClickHouseSink__sink-crash",
      runIndex: 0,
    });
    expect(command).toBe(
      "npm run chaos -- --sink AtMostOnceClickHouseSink --scenario sink-crash --schedule '/tmp/my reports/it'\\''s $HOME/AtMostOnceClickHouseSink__sink-crash/run-0/schedule.json'",
    );
  });
});
