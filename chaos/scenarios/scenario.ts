import type fc from 'fast-check';
import type { ClusterDescription, SettingProfile } from '../../harness/cluster/index.ts';
import type { HostForm, SinkClassName } from '../../sinks/index.ts';
import type { RawSinkSpec, SpecTarget, WorkloadLimits } from '../../properties/arbitraries/index.ts';
import type { ScheduleStep } from '../../properties/schedule/index.ts';
import type { ScenarioCoverage, TargetTable } from '../../properties/judge/index.ts';

/** Which scenarios a job runs: `ci` the everyday set, `full` every scenario. */
export type Profile = 'ci' | 'full';

/** What a scenario knows of the cluster when it generates a schedule for one spec (faults are aimed later, at the INSERT they meet). */
export interface ScenarioContext {
  readonly description: ClusterDescription;
  readonly keepers: readonly string[];
  /** The spec the run starts with (topology scenarios derive their changes from it). */
  readonly spec: RawSinkSpec;
  /**
   * The harness started the cluster, so a node-wide fault (a failpoint) touches nothing but the
   * run; on an attached cluster it would reach its owner's tables, and is not drawn.
   */
  readonly ownsCluster: boolean;
}

export type { TargetTable };

/** A short-window run's dedup window; its cleanup runs every second (measured on 26.7: a replay 1 s after a cleanup is inserted again). */
export const SHORT_DEDUP_WINDOW_S = 1;
/** The `replay_horizon` a short-window scenario's specs carry: longer than the short window, shorter than the server's default hour. */
export const SHORT_WINDOW_REPLAY_HORIZON = '10m';

/** One line of the catalogue: which classes, which schedules, which events a pass requires. */
export interface ScenarioDefinition {
  readonly name: string;
  readonly description: string;
  readonly classes: readonly SinkClassName[];
  /** Host forms the spec arbitrary may use (default: every form the class accepts). */
  readonly forms?: readonly HostForm[];
  /** Replaces the spec arbitrary altogether (a scenario that needs one particular layout). */
  readonly specs?: (target: SpecTarget) => fc.Arbitrary<RawSinkSpec>;
  /**
   * Limits on the drawn workload (a scenario that needs a particular message count or size); the
   * profile's volume is added to them (`RunBudget.volume`).
   */
  readonly workload?: Omit<WorkloadLimits, 'volume'>;
  /** The table the sink writes to (default `replicated`). */
  readonly target?: TargetTable;
  /** Fixes the partition count (the topology guard needs one drained and one undrained partition). */
  readonly partitions?: number;
  /**
   * The setting profile the sink's user carries in a run (`harness/cluster/config/setting-profiles.ts`),
   * given whether the run is the one with the table's dedup off; undefined: the cluster's own user.
   */
  readonly settingProfile?: (dedupOff: boolean) => SettingProfile | undefined;
  /** The profiles whose job runs it (default both); a scenario named with `--scenario` runs in any. */
  readonly profiles?: readonly Profile[];
  /** Keeper members its faults need (default 1): the job starts a cluster of its own for such scenarios. */
  readonly keepers?: number;
  /** Shards the cluster needs (default 1). */
  readonly shards?: number;
  /** Replicas every shard needs (default 1): a quorum fault stops the sibling an INSERT waits for. */
  readonly replicasPerShard?: number;
  /** Its faults are node-wide (failpoints): run only on a cluster the harness started, never on an attached one. */
  readonly ownedClusterOnly?: boolean;
  readonly commands: (context: ScenarioContext) => fc.Arbitrary<ScheduleStep[]>;
  /** Process actions on cluster members its faults take (`kill`, `pause`, `resume`, `start`); on a cluster that lacks one it is not run. */
  readonly processActions?: readonly string[];
  /**
   * The "sometimes" events beyond what the schedule itself declares (its faults, crash points and
   * topology changes) and beyond a run without server dedup, which every token-less class owes. Runs are generated
   * until all of it happened or the profile's budget is spent.
   */
  readonly coverage: (sinkClass: SinkClassName, cluster?: ClusterDescription) => ScenarioCoverage;
}
