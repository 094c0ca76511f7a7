import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readHistory } from '../../harness/flow/history/history-reader.ts';
import { sourceConfig } from '../../harness/flow/source/source-config.ts';
import type { CheckInput } from './check-run.ts';
import { readCheckRecord, writeCheckRecord } from './check-record.ts';

const GOLDEN = fileURLToPath(new URL('../../properties/checkers/golden/exactly-once-replayed.jsonl', import.meta.url));

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the stored check record', () => {
  it('gives back every field of the check input, the run table and history included', () => {
    dir = mkdtempSync(join(tmpdir(), 'check-record-'));
    copyFileSync(GOLDEN, join(dir, 'history.jsonl'));
    const input: CheckInput = {
      description: { backend: 'embedded', shards: [], keepers: [] } as unknown as CheckInput['description'],
      sinkClass: 'ClickHouseBatchingSink',
      source: sourceConfig({
        seed: 3,
        partitions: 1,
        messagesPerEpoch: 4,
        keySpace: 8,
        payloadBytes: { min: 16, max: 32 },
      }),
      events: readHistory(join(dir, 'history.jsonl')).events,
      truth: {
        replicas: [{ shard: 's1', replica: 's1r1', counts: new Map([['1-0-0', 1]]) }],
        viaDistributed: new Map([['1-0-0', 1]]),
        serverInserts: [],
        routed: new Map([['unsharded', new Map([['1-0-0', 's1']])]]),
        forms: new Map([['1-0-0', new Set(['row 1-0-0'])]]),
        logMarkerFound: ['s1r1'],
        readAt: 42,
      },
      coverage: { faults: ['reset_peer'], replay: true },
      specs: [
        {
          from: 1,
          spec: { sink_class_name: 'ClickHouseBatchingSink', name: 's', parameters: {}, dynamic_parameters: {} },
        },
      ],
      expectations: [],
      serverDedupOff: true,
      target: 'single-host-merge-tree',
    };
    writeCheckRecord(dir, { scenario: 'plain-merge-tree', phase: 'explore', input, verdict: 'pass', anomalies: [] });
    const { record, input: read } = readCheckRecord(dir);
    expect(read).toEqual(input);
    expect([record.scenario, record.phase, record.verdict]).toEqual(['plain-merge-tree', 'explore', 'pass']);
  });
});
