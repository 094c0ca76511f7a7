import type { FaultType } from '../harness/flow/history/fault-type.ts';
import type { SinkClassName } from '../sinks/domain/sink-class-name.ts';
import type { DeliveryGuarantee } from '../sinks/sink-classes.ts';
import type { Anomaly } from '../properties/checkers/check-result.ts';
import type { DeliveryCounts } from '../properties/checkers/total-queue-checker.ts';
import type { Verdict } from '../properties/verdict.ts';
import type { ProcessMemory } from '../harness/cluster/process/local-process.ts';
import type { InsertPerformance } from './performance.ts';

export interface InsertCounts {
  readonly ok: number;
  readonly failed: number;
  readonly unknown: number;
}

/** Wall time of one scenario by phase, for the "where does the time go" figures. */
export interface PhaseTimes {
  readonly clusterMs: number;
  readonly trafficMs: number;
  readonly healMs: number;
  readonly checkMs: number;
}

/** Unknown-outcome INSERTs settled against the servers' logs (Jepsen's recovered vs lost-if-acknowledged). */
export interface UnknownOutcomes {
  /** The server had finished it: it committed (or was dropped as a duplicate) unanswered. */
  readonly landed: number;
  /** The server never finished it: it never arrived, or failed there. */
  readonly absent: number;
  /** Its replica was restarted later and lost the log that would tell. */
  readonly unresolved: number;
}

/** Classes without a token: how often ClickHouse's block dedup was off, and what it would have hidden. */
export interface ServerDedupRuns {
  readonly offRuns: number;
  readonly onRuns: number;
  /** Messages the server accepted in two INSERTs (a duplicate, hidden by its dedup when on). */
  readonly acceptedTwice: number;
}

/** What a class owed and showed under one configuration (table engine and dedup, async_insert), over its runs. */
export interface ConfigurationResult {
  readonly configuration: string;
  readonly owed: DeliveryGuarantee;
  readonly runs: number;
  /** Runs whose check found a violation. */
  readonly violations: number;
  readonly lost: number;
  readonly duplicated: number;
  /** INSERTs ClickHouse dropped as duplicates: its block dedup at work. */
  readonly dedupHits: number;
  /** The materialized view behind the table, when there is one: what was owed there and what it showed. */
  readonly view?: ViewConfigurationResult;
}

/** The table a materialized view fills, judged on its own: what was owed there, in how many runs it broke, what it showed. */
export interface ViewConfigurationResult {
  readonly owed: DeliveryGuarantee;
  readonly violations: number;
  readonly lost: number;
  readonly duplicated: number;
}

/** Times each fault type fired (sink crashes as `sink_crash`); a type that never fired is absent. */
export type FaultCounts = Readonly<Partial<Record<FaultType, number>>>;

export interface ScenarioResult {
  readonly name: string;
  readonly sinkClass: SinkClassName;
  readonly verdict: Verdict;
  readonly seed: number;
  /** fast-check's shrink path of the reported counterexample, when there is one. */
  readonly path?: string | undefined;
  readonly replayCommand: string;
  /** Runs of the budget (not shrink steps). */
  readonly runs: number;
  /** Steps spent shrinking a violation (each a full run). */
  readonly shrinkRuns: number;
  /** Why exploring ended: the declared coverage happened, or the budget was spent first. */
  readonly stopped: 'covered' | 'budget-spent';
  readonly durationMs: number;
  readonly phases: PhaseTimes;
  readonly counts: DeliveryCounts;
  readonly inserts: InsertCounts;
  readonly replays: number;
  readonly dedupHits: number;
  readonly refusals: number;
  readonly unknownOutcomes: UnknownOutcomes;
  /** Null for the classes that send a token (their target always keeps the window). */
  readonly serverDedup: ServerDedupRuns | null;
  readonly faults: FaultCounts;
  readonly anomalies: readonly Anomaly[];
  /** Each give-up of the defining runs, one line: partition, batch, attempts, the last error. */
  readonly giveUps: readonly string[];
  /** Coverage that did not happen, infrastructure errors, hints. */
  readonly notes: readonly string[];
  /** The (shrunk) schedule of the reported run, one command per line. */
  readonly commands: readonly string[];
  /** The exploring runs by configuration (absent in results written before it existed). */
  readonly configurations?: readonly ConfigurationResult[];
}

export interface ClassResult {
  readonly guarantee: DeliveryGuarantee;
  readonly verdict: Verdict;
  readonly counts: DeliveryCounts;
  readonly inserts: InsertCounts;
  readonly replays: number;
  readonly dedupHits: number;
  readonly refusals: number;
  readonly unknownOutcomes: UnknownOutcomes;
  readonly serverDedup: ServerDedupRuns | null;
  readonly faults: FaultCounts;
  /** Inserts the sink gave up ("Giving up insert into ClickHouse"), over its scenarios. */
  readonly giveUps: number;
  readonly performance: InsertPerformance;
  readonly scenarios: readonly ScenarioResult[];
}

/**
 * What a chaos run was asked to run, beside its seed, profile, backend and slice: enough to
 * recompute from the catalogue the class x scenario pairs of its matrix, and of each slice.
 */
export interface RunSelection {
  /** The classes, in the order the matrix takes them. */
  readonly classes: readonly SinkClassName[];
  /** The scenario names, in the order the matrix takes them. */
  readonly scenarios: readonly string[];
  readonly serverDedup: string;
  /** The replayed case (`--path`), or null. */
  readonly path: string | null;
}

export interface RunResult {
  readonly runId: string;
  readonly backend: string;
  readonly backendLimits: readonly string[];
  readonly seed: number;
  readonly profile: string;
  /** `I/N` when the run was one slice of the class x scenario matrix (`--shard`), or the slices a merged report joined. */
  readonly slice: string | null;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly clusterStartMs: number;
  /** Current and peak RSS per cluster process at the end of the run; null where the backend does not see them. */
  readonly clusterMemory: Readonly<Record<string, ProcessMemory>> | null;
  readonly verdict: Verdict;
  readonly classes: Readonly<Record<string, ClassResult>>;
  /** A signal stopped the run before every pair was judged: its command exited 130 / 143 (absent: no). */
  readonly interrupted?: boolean;
  /** Absent in results written before it was recorded; a merged result has its slices' (they must agree). */
  readonly selection?: RunSelection;
  /** The git commit the harness ran from (`+changes` when the tree had uncommitted edits), null outside a checkout. */
  readonly commit?: string | null;
}
