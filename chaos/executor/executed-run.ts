import type fc from 'fast-check';
import type { SettingProfile } from '../../harness/cluster/index.ts';
import type { CoverageLedger, RunReadTally } from '../../properties/checkers/index.ts';
import type { RunJudgement } from '../../properties/judge/index.ts';
import type { ExploreDecision } from './run-budget.ts';
import type { RunInput } from './run-input.ts';

/** Where a run spent its time: the schedule, the heal and final drain, the oracle and the check. */
export interface PhaseTimes {
  trafficMs: number;
  healMs: number;
  checkMs: number;
}

export interface ExecutedRun {
  readonly index: number;
  /** `explore`: a run of the budget; `shrink`: a step of shrinking a violation (counted apart). */
  readonly phase: 'explore' | 'shrink';
  readonly input: RunInput;
  /** The run's target had ClickHouse's block dedup off. */
  readonly serverDedupOff: boolean;
  /** The setting profile the sink's user carried, on a cluster of `replicas` replicas per shard. */
  readonly profile?: { readonly name: SettingProfile; readonly replicas: number };
  readonly check?: RunJudgement;
  readonly infraError?: string;
  /** What readers saw of the table while the run wrote and healed (figures, never a verdict). */
  readonly reads?: readonly RunReadTally[];
  readonly durationMs: number;
  readonly phases: Readonly<PhaseTimes>;
}

export interface ScenarioOutcome {
  readonly runs: readonly ExecutedRun[];
  /** Coverage over the exploring runs that were checked. */
  readonly ledger: CoverageLedger;
  /** Why exploring stopped: the declared coverage happened, or the budget ran out. */
  readonly stopped: ExploreDecision;
  /** The shrink budget ran out while fast-check still had smaller cases to try. */
  readonly shrinkTruncated: boolean;
  /**
   * The index (in `runs`) of the reported counterexample: the smallest case that showed the first
   * violation's failure. Other violating runs are shrink steps that slipped to another failure.
   */
  readonly counterexample: number | undefined;
  /** The index of the first shrink step that showed that failure too: the first smaller case; absent when none did. */
  readonly firstShrunk?: number | undefined;
  /** fast-check's verdict: the shrunk counterexample when a run violated the guarantee. */
  readonly details: fc.RunDetails<[RunInput]>;
}
