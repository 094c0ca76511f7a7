import { describe, expect, it } from 'vitest';
import { ASYNC_INSERT_RUNS_SYNCHRONOUSLY } from '../../harness/cluster/index.ts';
import { type ConfigurationRow, NO_TALLY } from '../results/index.ts';
import { configurationRows } from './configuration-rows.ts';

const row = (configuration: string): ConfigurationRow => ({
  configuration,
  owed: 'exactly-once',
  tally: { ...NO_TALLY, runs: 1 },
});

describe('configurationRows', () => {
  it('says beside async_insert on that a backend running async inserts synchronously ran them so', () => {
    const rows = [row('ReplicatedMergeTree · async_insert on'), row('ReplicatedMergeTree · async_insert off')];
    const cells = configurationRows(rows, 'exactly-once', [ASYNC_INSERT_RUNS_SYNCHRONOUSLY]).map((cells) => cells[0]);
    expect(cells).toEqual([
      'ReplicatedMergeTree · async_insert on (the engine ran it synchronously; the settings sent were judged)',
      'ReplicatedMergeTree · async_insert off',
    ]);
  });

  it('leaves the configuration alone on a backend that runs async inserts', () => {
    const cells = configurationRows([row('ReplicatedMergeTree · async_insert on')], 'exactly-once', []);
    expect(cells[0]?.[0]).toBe('ReplicatedMergeTree · async_insert on');
  });
});
