import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readHistory } from '../../../harness/flow/history/index.ts';
import { sourceConfig } from '../../../harness/flow/index.ts';
import type { Verdict } from '../../../properties/base/index.ts';
import { step } from '../../../properties/schedule/index.ts';
import type { StoredRun } from '../../../properties/judge/index.ts';
import { writeCheckRecord } from '../check-record.ts';
import { RESPONSE_CUT } from '../../../properties/schedule/testing/fault-specs.ts';

const GOLDEN = fileURLToPath(
  new URL('../../../properties/checkers/golden/exactly-once-replayed.jsonl', import.meta.url),
);

/** A run directory as the executor leaves it: a (golden) `history.jsonl` and the check record written beside it. */
export function storeRun(
  dir: string,
  record: {
    readonly phase?: 'explore' | 'shrink';
    readonly verdict?: Verdict;
    readonly description?: StoredRun['description'];
  } = {},
): StoredRun {
  mkdirSync(dir, { recursive: true });
  copyFileSync(GOLDEN, join(dir, 'history.jsonl'));
  const input: StoredRun = {
    description:
      record.description ?? ({ backend: 'embedded', shards: [], keepers: [] } as unknown as StoredRun['description']),
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
    scenarioCoverage: { replay: true },
    schedule: [step.faultEpisode(RESPONSE_CUT, 1, 0)],
    serverDedupOff: true,
    target: 'single-host-merge-tree',
  };
  writeCheckRecord(dir, {
    scenario: 'plain-merge-tree',
    phase: record.phase ?? 'explore',
    input,
    verdict: record.verdict ?? 'pass',
    anomalies: [],
  });
  return input;
}
