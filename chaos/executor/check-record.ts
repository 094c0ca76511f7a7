import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readHistory } from '../../harness/flow/history/history-reader.ts';
import type { GroundTruth } from '../../harness/oracle/ground-truth.ts';
import type { ReplicaTruth } from '../../harness/oracle/replica-counts.ts';
import type { Anomaly } from '../../properties/checkers/check-result.ts';
import type { Verdict } from '../../properties/verdict.ts';
import type { CheckInput } from './check-run.ts';

export const CHECK_INPUT_FILE = 'check-input.json';

/** What one run recorded for its check, beside its `history.jsonl`; the history itself is not repeated. */
export interface CheckRecord {
  readonly version: 1;
  readonly scenario: string;
  readonly phase: 'explore' | 'shrink';
  readonly input: Omit<CheckInput, 'events' | 'truth'> & { readonly truth: StoredTruth };
  /** What the check said when the run ended. */
  readonly verdict: Verdict;
  readonly anomalies: readonly Anomaly[];
}

/** GroundTruth with its maps and sets as arrays of entries (JSON has neither). */
interface StoredTruth {
  readonly replicas: StoredReplicas;
  readonly viaDistributed: ReadonlyArray<readonly [string, number]>;
  readonly serverInserts: GroundTruth['serverInserts'];
  readonly routed: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, string]>]>;
  readonly forms: ReadonlyArray<readonly [string, readonly string[]]>;
  readonly view?: StoredReplicas;
  readonly logMarkerFound?: GroundTruth['logMarkerFound'];
  readonly readAt: number;
}

type StoredReplicas = ReadonlyArray<{
  readonly shard: string;
  readonly replica: string;
  readonly counts: ReadonlyArray<readonly [string, number]>;
}>;

const storeReplicas = (replicas: readonly ReplicaTruth[]): StoredReplicas =>
  replicas.map((replica) => ({ shard: replica.shard, replica: replica.replica, counts: [...replica.counts] }));

const loadReplicas = (stored: StoredReplicas): ReplicaTruth[] =>
  stored.map((replica) => ({ shard: replica.shard, replica: replica.replica, counts: new Map(replica.counts) }));

function storeTruth(truth: GroundTruth): StoredTruth {
  return {
    replicas: storeReplicas(truth.replicas),
    viaDistributed: [...truth.viaDistributed],
    serverInserts: truth.serverInserts,
    routed: [...truth.routed].map(([layout, ids]) => [layout, [...ids]] as const),
    forms: [...truth.forms].map(([id, forms]) => [id, [...forms]] as const),
    ...(truth.view === undefined ? {} : { view: storeReplicas(truth.view) }),
    ...(truth.logMarkerFound === undefined ? {} : { logMarkerFound: truth.logMarkerFound }),
    readAt: truth.readAt,
  };
}

function loadTruth(stored: StoredTruth): GroundTruth {
  return {
    replicas: loadReplicas(stored.replicas),
    viaDistributed: new Map(stored.viaDistributed),
    serverInserts: stored.serverInserts,
    routed: new Map(stored.routed.map(([layout, ids]) => [layout, new Map(ids)])),
    forms: new Map(stored.forms.map(([id, forms]) => [id, new Set(forms)])),
    ...(stored.view === undefined ? {} : { view: loadReplicas(stored.view) }),
    ...(stored.logMarkerFound === undefined ? {} : { logMarkerFound: stored.logMarkerFound }),
    readAt: stored.readAt,
  };
}

export function writeCheckRecord(
  runDir: string,
  record: {
    scenario: string;
    phase: CheckRecord['phase'];
    input: CheckInput;
    verdict: Verdict;
    anomalies: readonly Anomaly[];
  },
): void {
  // The events are the run's history.jsonl already: not repeated here. Everything else is kept
  // whole, so a field added to CheckInput is stored without touching this.
  const { events, truth, ...rest } = record.input;
  const input = { ...rest, truth: storeTruth(truth) };
  const stored: CheckRecord = {
    version: 1,
    scenario: record.scenario,
    phase: record.phase,
    input,
    verdict: record.verdict,
    anomalies: record.anomalies,
  };
  writeFileSync(join(runDir, CHECK_INPUT_FILE), `${JSON.stringify(stored)}\n`);
}

/** A run's check input rebuilt from its directory alone: `check-input.json` and `history.jsonl`. */
export function readCheckRecord(runDir: string): { record: CheckRecord; input: CheckInput } {
  const record = JSON.parse(readFileSync(join(runDir, CHECK_INPUT_FILE), 'utf8')) as CheckRecord;
  const history = readHistory(join(runDir, 'history.jsonl'));
  return { record, input: { ...record.input, truth: loadTruth(record.input.truth), events: history.events } };
}
