import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readHistory } from '../../harness/flow/history/index.ts';
import type { ServerInsert } from '../../harness/oracle/index.ts';
import type { DeliveryGuarantee } from '../../sinks/index.ts';
import type { Verdict } from '../base/index.ts';
import { checkScenario } from './check-scenario.ts';
import { NO_EVIDENCE } from './coverage-ledger.ts';
import type { ReplicaTruth } from './observations.ts';
import { observe } from './observe.ts';

// Stored histories (golden/*.jsonl) with what the replicas held, through the one real
// translation (`observe`) into every checker: if the translation lost "acknowledged", "lost"
// could never fire, and these would say so.

const GOLDEN = fileURLToPath(new URL('./golden/', import.meta.url));

/** The same rows on both replicas of shard s1. */
function replicas(counts: Record<string, number>): ReplicaTruth[] {
  return ['s1r1', 's1r2'].map((replica) => ({ shard: 's1', replica, counts: new Map(Object.entries(counts)) }));
}

const logged = (queryId: string, token = '', deduplicated = false): ServerInsert => ({
  queryId,
  replica: 's1r1',
  finished: true,
  deduplicated,
  token,
});
const refused = (queryId: string, token: string): ServerInsert => ({ ...logged(queryId, token), finished: false });

interface Case {
  readonly guarantee: DeliveryGuarantee;
  readonly rows: Record<string, number>;
  readonly serverInserts: readonly ServerInsert[];
  /** Anomaly categories every checker together must report (empty: a pass). */
  readonly flagged: readonly string[];
  /** Another case's stored history, when only what the replicas hold differs. */
  readonly history?: string;
  /** Ids whose stored row differs from what the source produced. */
  readonly altered?: readonly string[];
  /** At-most-once in queue mode (default: the ordered mode, which keeps pending messages). */
  readonly queueMode?: boolean;
  /** The spec's `max_insert_attempts` (default 10). */
  readonly maxInsertAttempts?: number;
  /** Whether the oracle found its marker in the replica's log (default: it did). */
  readonly logVouched?: boolean;
  /** The verdict every checker together must reach (default: a violation when anything is flagged, else a pass). */
  readonly verdict?: Verdict;
}

const ONCE = { '1-0-0': 1, '1-0-1': 1, '1-0-2': 1, '1-0-3': 1 };
const EO_LOG = [logged('q1', '1-0-1'), logged('q2', '1-0-3')];

const CASES: Record<string, Case> = {
  'exactly-once-lost': {
    guarantee: 'exactly-once',
    rows: { '1-0-0': 1, '1-0-1': 1, '1-0-3': 1 },
    serverInserts: EO_LOG,
    flagged: ['lost'],
  },
  // The same lost row, in a run whose last instance then gave up on a later batch: the give-up
  // holds back that batch's rows, never those of a batch delivered before it.
  'exactly-once-lost-then-gave-up': {
    guarantee: 'exactly-once',
    rows: { '1-0-0': 1, '1-0-1': 1, '1-0-3': 1 },
    serverInserts: [...EO_LOG, refused('q3a1', '1-0-5'), refused('q3a2', '1-0-5'), refused('q3a3', '1-0-5')],
    maxInsertAttempts: 3,
    flagged: ['lost'],
  },
  // A give-up the history shows no attempt of: the sink's "permanent" claim alone allows nothing.
  'exactly-once-lost-then-gave-up-unattempted': {
    guarantee: 'exactly-once',
    rows: { '1-0-0': 1, '1-0-1': 1, '1-0-3': 1 },
    serverInserts: EO_LOG,
    flagged: ['lost', 'give-up-without-attempt'],
  },
  'exactly-once-replayed': {
    guarantee: 'exactly-once',
    rows: ONCE,
    serverInserts: [logged('q1a1', '1-0-1'), logged('q1a2', '1-0-1', true), logged('q2', '1-0-3')],
    flagged: [],
  },
  // The audit's probe: a token class whose servers logged nothing. Every log-based check would see
  // nothing, and the unknown outcome would count as absent; the run is not verified instead.
  'exactly-once-empty-log': {
    history: 'exactly-once-replayed',
    guarantee: 'exactly-once',
    rows: ONCE,
    serverInserts: [],
    logVouched: false,
    flagged: [],
    verdict: 'infra-error',
  },
  // A log that lost one answered INSERT (q2, ok): the run cannot be verified, whatever the rest shows.
  'exactly-once-partial-log': {
    history: 'exactly-once-replayed',
    guarantee: 'exactly-once',
    rows: ONCE,
    serverInserts: [logged('q1a1', '1-0-1'), logged('q1a2', '1-0-1', true)],
    flagged: [],
    verdict: 'infra-error',
  },
  // The audit's probe: an INSERT the server ran under a query id no attempt has, with a wrong token.
  'exactly-once-unrecorded-insert': {
    history: 'exactly-once-replayed',
    guarantee: 'exactly-once',
    rows: ONCE,
    serverInserts: [
      logged('q1a1', '1-0-1'),
      logged('q1a2', '1-0-1', true),
      logged('q2', '1-0-3'),
      logged('qx', 'wrong'),
    ],
    flagged: ['unrecorded-insert'],
  },
  'exactly-once-unexpected-row': {
    guarantee: 'exactly-once',
    rows: { ...ONCE, '1-0-9': 1 },
    serverInserts: EO_LOG,
    flagged: ['unexpected'],
  },
  'acknowledged-by-snapshot': {
    guarantee: 'exactly-once',
    rows: { '1-0-0': 1, '1-0-2': 1, '1-0-3': 1 },
    serverInserts: EO_LOG,
    flagged: ['lost'],
  },
  'token-two-row-sets': {
    guarantee: 'exactly-once',
    rows: ONCE,
    serverInserts: [logged('q1', '1-0-3'), logged('q2', '1-0-3')],
    flagged: ['token-covers-two-row-sets', 'token-not-as-owed'],
  },
  'at-least-once-written-twice': {
    guarantee: 'at-least-once',
    rows: { '1-0-0': 2, '1-0-1': 2, '1-0-2': 2, '1-0-3': 2 },
    serverInserts: [logged('q1'), logged('q2')],
    flagged: [],
  },
  'exactly-once-altered-row': {
    guarantee: 'exactly-once',
    history: 'exactly-once-replayed',
    rows: ONCE,
    serverInserts: [logged('q1a1', '1-0-1'), logged('q1a2', '1-0-1', true), logged('q2', '1-0-3')],
    altered: ['1-0-2'],
    flagged: ['unexpected'],
  },
  'at-most-once-reinserted': {
    guarantee: 'at-most-once',
    rows: { '1-0-0': 1, '1-0-1': 1 },
    serverInserts: [logged('q1'), logged('q2', '', true), logged('q3')],
    flagged: ['duplicated'],
  },
  // A crash after the commit; the restart went on with the next epoch and never sent the pending one.
  'at-most-once-pending-dropped': {
    guarantee: 'at-most-once',
    rows: { '1-0-2': 1 },
    serverInserts: [logged('q4')],
    flagged: ['pending-dropped'],
  },
  // Its worker died at the INSERT's before-insert point (nothing sent), the restart never sent the
  // messages that INSERT named: they were still pending, so dropping them is a loss.
  'at-most-once-dropped-at-before-insert': {
    guarantee: 'at-most-once',
    rows: { '1-0-2': 1 },
    serverInserts: [logged('q4')],
    flagged: ['pending-dropped'],
  },
  'at-most-once-kept-past-before-insert': {
    guarantee: 'at-most-once',
    rows: { '1-0-0': 1, '1-0-1': 1, '1-0-2': 1 },
    serverInserts: [logged('q2'), logged('q4')],
    flagged: [],
  },
  'at-most-once-queue-crashed': {
    history: 'at-most-once-pending-dropped',
    guarantee: 'at-most-once',
    rows: { '1-0-2': 1 },
    serverInserts: [logged('q4')],
    queueMode: true,
    flagged: [],
  },
  // A Keeper outage timed out batch 1's INSERT; once healed and the cluster healthy, the sink
  // retried and drained within its bound: figures, no anomaly.
  'exactly-once-recovered-after-heal': {
    guarantee: 'exactly-once',
    rows: ONCE,
    serverInserts: [logged('q1a2', '1-0-1'), logged('q2', '1-0-3')],
    flagged: [],
  },
  // The same outage, and a sink that sent nothing more for its whole bound after the heal: the
  // executor restarted it, the new instance delivered every row once. Only liveness can see it.
  'exactly-once-stalled-after-heal': {
    guarantee: 'exactly-once',
    rows: ONCE,
    serverInserts: [logged('q1b1', '1-0-1'), logged('q2', '1-0-3')],
    flagged: ['stalled'],
  },
};

describe('golden histories through the translation into every checker', () => {
  it.each(Object.entries(CASES))('%s', (name, golden) => {
    const history = readHistory(join(GOLDEN, `${golden.history ?? name}.jsonl`));
    const forms = new Map(
      Object.keys(golden.rows).map((id) => [
        id,
        new Set([golden.altered?.includes(id) === true ? `cut ${id}` : `row ${id}`]),
      ]),
    );
    const { observations, facts, unknown } = observe({
      guarantee: golden.guarantee,
      sendsToken: golden.guarantee === 'exactly-once',
      generation: 1,
      events: history.events,
      truth: {
        replicas: replicas(golden.rows),
        viaDistributed: new Map(Object.entries(golden.rows)),
        serverInserts: golden.serverInserts,
        forms,
        logMarkerFound: golden.logVouched === false ? [] : ['s1r1'],
      },
      producedForm: (id) => `row ${id}`,
      replicaOf: () => 's1r1',
      expectedShards: () => () => ['s1'],
      expectedRefusals: [],
      insertBudgetDuring: () => ({ fewest: golden.maxInsertAttempts ?? 10, most: golden.maxInsertAttempts ?? 10 }),
      orderedModeAt: () => golden.queueMode !== true,
      asyncInsertsAllowedAt: () => [false],
    });
    expect(facts.acknowledged.size, 'the history acknowledges its epoch').toBeGreaterThan(0);
    const check = checkScenario(observations, { faults: [] }, NO_EVIDENCE);
    expect(
      [...new Set(check.results.flatMap((result) => result.anomalies.map((anomaly) => anomaly.category)))].sort(),
    ).toEqual([...golden.flagged].sort());
    expect(check.verdict).toBe(golden.verdict ?? (golden.flagged.length > 0 ? 'violation' : 'pass'));
    if (name === 'exactly-once-replayed') expect(unknown.landed.map((attempt) => attempt.queryId)).toEqual(['q1a1']);
    if (name === 'exactly-once-empty-log')
      expect(unknown.unresolved.map((attempt) => attempt.queryId)).toEqual(['q1a1']);
    if (name === 'at-least-once-written-twice') expect(check.counts.duplicated).toBe(4);
    if (name === 'exactly-once-lost-then-gave-up') expect(check.counts).toMatchObject({ lost: 1, gaveUp: 2 });
    if (name === 'exactly-once-recovered-after-heal')
      expect(observations.recoveries).toMatchObject([{ outcome: 'drained', firstOkMs: 4130, drainedMs: 4200 }]);
    if (name === 'exactly-once-stalled-after-heal') {
      expect(observations.recoveries).toMatchObject([{ outcome: 'stalled' }]);
      expect(observations.recoveries[0]?.firstOkMs).toBeUndefined();
    }
  });
});
