import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readHistory } from '../../harness/flow/history/index.ts';
import { sourceConfig } from '../../harness/flow/index.ts';
import { judge, unverified, type StoredRun } from './judge-run.ts';

const GOLDEN = fileURLToPath(new URL('../../properties/checkers/golden/exactly-once-replayed.jsonl', import.meta.url));

/** The golden replayed run (its INSERTs went to 127.10.1.1:8123, replica s1r1) with what the servers logged. */
function input(truth: Pick<StoredRun['truth'], 'serverInserts' | 'logMarkerFound'>): StoredRun {
  const rows = new Map(['1-0-0', '1-0-1', '1-0-2', '1-0-3'].map((id) => [id, 1]));
  return {
    description: {
      backend: 'embedded',
      keepers: [],
      shards: [
        {
          name: 's1',
          replicas: [{ name: 's1r1', http: 'http://127.10.1.1:8123', proxies: { client: 's1r1_client' } }],
        },
      ],
    } as unknown as StoredRun['description'],
    sinkClass: 'ClickHouseBatchingSink',
    source: sourceConfig({ seed: 3, partitions: 1, messagesPerEpoch: 4 }),
    events: readHistory(GOLDEN).events,
    truth: {
      replicas: [{ shard: 's1', replica: 's1r1', counts: rows }],
      viaDistributed: rows,
      routed: new Map(),
      forms: new Map(),
      readAt: 1,
      ...truth,
    },
    scenarioCoverage: {},
    schedule: [],
    serverDedupOff: false,
    target: 'replicated',
  };
}

describe('a run whose query_log cannot vouch for it', () => {
  it('is infra-error, with the reason the executor records as the run’s harness failure', () => {
    const check = judge(input({ serverInserts: [], logMarkerFound: [] }));
    expect(check.verdict).toBe('infra-error');
    expect(unverified(check)).toContain(
      "query_log is incomplete: 2 INSERT(s) the server answered are missing from their replica's log (q1a2 (ok) on s1r1; q2 (ok) on s1r1)",
    );
    expect(check.evidence.sightings.unknownAbsent).toBe(0);
  });

  it('is judged when every answered attempt is in its replica’s log', () => {
    const logged = (queryId: string, token: string) => ({
      queryId,
      replica: 's1r1',
      finished: true,
      deduplicated: false,
      token,
    });
    const check = judge(
      input({
        serverInserts: [logged('q1a1', '1-0-1'), logged('q1a2', '1-0-1'), logged('q2', '1-0-3')],
        logMarkerFound: ['s1r1'],
      }),
    );
    expect(unverified(check)).toBeUndefined();
    expect(check.verdict).not.toBe('infra-error');
  });
});
