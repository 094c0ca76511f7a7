import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactDescription } from '../../harness/cluster/index.ts';
import { HarnessError } from '../../harness/base/index.ts';
import { readHistory, type Stamped } from '../../harness/flow/history/index.ts';
import type { GroundTruth, ReplicaTruth } from '../../harness/oracle/index.ts';
import type { Anomaly } from '../../properties/checkers/index.ts';
import type { Verdict } from '../../properties/base/index.ts';
import type { StoredRun } from '../../properties/judge/index.ts';

export const CHECK_INPUT_FILE = 'check-input.json';
/**
 * 3: the specs in force and the guard's expectations are no longer stored (the judge derives them
 * from the history's launches). Records 1 and 2 kept them instead, and are refused, not misjudged.
 */
export const CHECK_RECORD_VERSION = 3;
const HISTORY_FILE = 'history.jsonl';

/** What one run recorded for its check, beside its `history.jsonl`; the history itself is not repeated. */
export interface CheckRecord {
  /** The format this harness writes and reads (`CHECK_RECORD_VERSION`). */
  readonly version: typeof CHECK_RECORD_VERSION;
  readonly scenario: string;
  readonly phase: 'explore' | 'shrink';
  readonly input: Omit<StoredRun, 'events' | 'truth'> & { readonly truth: StoredTruth };
  /** What the check said when the run ended. */
  readonly verdict: Verdict;
  readonly anomalies: readonly Anomaly[];
  /** The history the check read, as `history.jsonl` holds it: a cut or replaced file is told from a changed verdict. */
  readonly history: { readonly events: number; readonly sha256: string };
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
    input: StoredRun;
    verdict: Verdict;
    anomalies: readonly Anomaly[];
  },
): void {
  // The events are the run's history.jsonl already: not repeated here. Everything else is kept
  // whole, so a field added to StoredRun is stored without touching this; the cluster
  // description as reports may keep it (no process commands, no URL login).
  const { events, truth, ...rest } = record.input;
  const input = { ...rest, description: redactDescription(rest.description), truth: storeTruth(truth) };
  const stored: CheckRecord = {
    version: CHECK_RECORD_VERSION,
    scenario: record.scenario,
    phase: record.phase,
    input,
    verdict: record.verdict,
    anomalies: record.anomalies,
    history: { events: events.length, sha256: sha256(historyText(events)) },
  };
  writeFileSync(join(runDir, CHECK_INPUT_FILE), `${JSON.stringify(stored)}\n`);
}

/** The events as `mergeHistory` writes them to `history.jsonl`, in the order the reader gives them back: what the hash covers. */
const historyText = (events: readonly Stamped[]) => events.map((event) => `${JSON.stringify(event)}\n`).join('');

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const damaged = (file: string, what: string) =>
  new HarnessError(
    'CHECK_RECORD_DAMAGED',
    `${file} ${what}: the run's stored files are damaged, so nothing can be judged from them; re-run the scenario with its replay line`,
  );

function readRecord(file: string): CheckRecord {
  if (!existsSync(file)) throw damaged(file, 'is missing');
  let record: Partial<CheckRecord>;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as Partial<CheckRecord>;
  } catch (error) {
    throw damaged(file, `is not JSON (${(error as Error).message})`);
  }
  if (typeof record.version === 'number' && record.version !== CHECK_RECORD_VERSION)
    throw new HarnessError(
      'CHECK_RECORD_VERSION',
      `${file} is a version ${record.version} check record; this harness judges version ${CHECK_RECORD_VERSION} only (its runs record the specs in their history): judge it with the harness that wrote it, or re-run the scenario with its replay line`,
    );
  if (record.version === undefined || record.input?.truth === undefined || !Array.isArray(record.anomalies))
    throw damaged(file, 'is not a check record (version, input, verdict, anomalies)');
  return record as CheckRecord;
}

/**
 * A run's check input rebuilt from its directory alone: `check-input.json` and `history.jsonl`.
 * A history that is missing, empty, ends in a cut line, or is not the one the run checked (its
 * event count and SHA-256 are in the record) is refused: judging what is left would blame the sink
 * or the checker for a damaged file.
 */
export function readCheckRecord(runDir: string): { record: CheckRecord; input: StoredRun } {
  const record = readRecord(join(runDir, CHECK_INPUT_FILE));
  const file = join(runDir, HISTORY_FILE);
  if (!existsSync(file)) throw damaged(file, 'is missing');
  const history = readHistory(file);
  const [torn] = history.tornLines;
  if (torn !== undefined) throw damaged(file, `ends in a cut line (${JSON.stringify(torn.text.slice(0, 60))})`);
  if (history.events.length === 0) throw damaged(file, 'holds no event (every run records at least its worker launch)');
  if (history.events.length !== record.history.events)
    throw damaged(file, `holds ${history.events.length} events, the run checked ${record.history.events}`);
  if (sha256(historyText(history.events)) !== record.history.sha256)
    throw damaged(file, `is not the history the run checked (its SHA-256 differs from ${CHECK_INPUT_FILE}'s)`);
  return { record, input: { ...record.input, truth: loadTruth(record.input.truth), events: history.events } };
}
