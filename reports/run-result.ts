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

export interface ScenarioResult {
  readonly name: string;
  readonly sinkClass: string;
  readonly verdict: Verdict;
  readonly seed: number;
  /** fast-check's shrink path of the reported counterexample, when there is one. */
  readonly path?: string | undefined;
  readonly replayCommand: string;
  readonly runs: number;
  readonly durationMs: number;
  readonly phases: PhaseTimes;
  readonly counts: DeliveryCounts;
  readonly inserts: InsertCounts;
  readonly replays: number;
  readonly dedupHits: number;
  readonly refusals: number;
  readonly faults: Readonly<Record<string, number>>;
  readonly anomalies: readonly Anomaly[];
  /** Coverage that did not happen, infrastructure errors, hints. */
  readonly notes: readonly string[];
  /** The (shrunk) schedule of the reported run, one command per line. */
  readonly commands: readonly string[];
}

export interface ClassResult {
  readonly guarantee: DeliveryGuarantee;
  readonly verdict: Verdict;
  readonly counts: DeliveryCounts;
  readonly inserts: InsertCounts;
  readonly replays: number;
  readonly dedupHits: number;
  readonly refusals: number;
  readonly faults: Readonly<Record<string, number>>;
  readonly performance: InsertPerformance;
  readonly scenarios: readonly ScenarioResult[];
}

export interface RunResult {
  readonly runId: string;
  readonly backend: string;
  readonly backendLimits: readonly string[];
  readonly seed: number;
  readonly profile: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly clusterStartMs: number;
  /** Current and peak RSS per cluster process at the end of the run; null where the backend does not see them. */
  readonly clusterMemory: Readonly<Record<string, ProcessMemory>> | null;
  readonly verdict: Verdict;
  readonly classes: Readonly<Record<string, ClassResult>>;
}
