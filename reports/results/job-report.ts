import type { RunId, Seed } from '../../harness/base/index.ts';
import type { ProcessMemory } from '../../harness/cluster/index.ts';
import type { Anomaly } from '../../properties/checkers/index.ts';
import type { JudgedClassName, OwedGuarantee, Verdict } from '../../properties/base/index.ts';
import type { DeliveryGuarantee } from '../../sinks/index.ts';
import type { InsertPerformance } from './performance.ts';
import type { Tally } from './tally.ts';

/** What a class owed on a table, and what its runs there showed. */
export interface OwedTally {
  readonly owed: OwedGuarantee;
  readonly tally: Tally;
}

/**
 * One row of the configuration matrix: the runs of a class under one configuration (table engine
 * and dedup, a view behind it, the user's settings, async_insert), what it owed there and showed;
 * `view` is the materialized view's table, judged on its own.
 */
export interface ConfigurationRow extends OwedTally {
  readonly configuration: string;
  readonly view?: OwedTally;
}

/** One class x scenario: its verdict by the one scenario rule, and the tally of the runs that define it. */
export interface ScenarioReport {
  readonly name: string;
  readonly sinkClass: JudgedClassName;
  readonly verdict: Verdict;
  readonly seed: Seed;
  /** fast-check's shrink path of the reported counterexample, when there is one. */
  readonly path?: string | undefined;
  readonly replayCommand: string;
  /** The shape of the started cluster it ran on (`2x2 (s1, s2)`); absent on an attached cluster. */
  readonly cluster?: string | undefined;
  /**
   * The command that replays the counterexample's stored input (`--schedule <its schedule.json>`):
   * unlike the seed and path, it holds after the generators changed.
   */
  readonly scheduleReplayCommand?: string | undefined;
  /** Runs of the budget (not shrink steps). */
  readonly runs: number;
  /** Steps spent shrinking a violation (each a full run). */
  readonly shrinkRuns: number;
  /** Why exploring ended: the declared coverage happened, or the budget was spent first. */
  readonly stopped: 'covered' | 'budget-spent';
  readonly durationMs: number;
  /** Wall time of the defining runs by phase, for the "where does the time go" figures. */
  readonly phases: { readonly trafficMs: number; readonly healMs: number; readonly checkMs: number };
  /** The reported counterexample's, or every exploring run's (never the shrink steps). */
  readonly tally: Tally;
  readonly anomalies: readonly Anomaly[];
  /** Each give-up of the defining runs, one line: partition, batch, attempts, the last error. */
  readonly giveUps: readonly string[];
  /** Coverage that did not happen, infrastructure errors, hints. */
  readonly notes: readonly string[];
  /** The (shrunk) schedule of the reported run, one command per line. */
  readonly commands: readonly string[];
  /** The exploring runs by configuration. */
  readonly configurations: readonly ConfigurationRow[];
  /** What readers saw while the runs published (the staged loader's scenarios), per publication operation. */
  readonly reads?: readonly ReadFigures[] | undefined;
}

/**
 * Readers' view of one publication operation over a scenario's runs: how many reads answered and
 * failed, how many saw a load in part (`fractured`), and the cross-table window — reads that saw a
 * multi-table load in some of its tables and not the others, and how long that lasted per load.
 */
export interface ReadFigures {
  readonly operation: string;
  readonly reads: number;
  readonly failedReads: number;
  readonly fractured: number;
  /** Reads of a replica under repair (out of service until it synced), and how many saw part of a load: measured, not judged. */
  readonly underRepair?: { readonly reads: number; readonly fractured: number } | undefined;
  /** Multi-table loads judged (single-table runs have no window). */
  readonly loads: number;
  readonly splitReads: number;
  /** Per load, from the first split read's start to the last one's end; null when no load spanned tables. */
  readonly windowMs: { readonly p50: number; readonly p95: number; readonly max: number } | null;
  /** The run of this operation with the widest window, read by read (the HTML chart). */
  readonly shown?: ReadTimeline | undefined;
  /** A sink's reader: reads that missed an INSERT acknowledged before they began (through `_dist`). */
  readonly stale?: number | undefined;
  /** A sink's reader: reads that lacked a row an earlier read saw. */
  readonly wentBack?: number | undefined;
  /** A sink's reader read with `select_sequential_consistency = 1` (a sequential quorum's promise). */
  readonly sequential?: boolean | undefined;
}

/** One run's reads over time: how many whole load parts each read saw, and the windows of its loads. */
export interface ReadTimeline {
  readonly run: number;
  readonly durationMs: number;
  /** (table, load) parts the run published in all. */
  readonly parts: number;
  readonly windows: readonly { readonly load: number; readonly fromMs: number; readonly toMs: number }[];
  readonly reads: readonly {
    readonly atMs: number;
    readonly replica: string;
    /** (table, load) parts the read saw whole. */
    readonly seen: number;
    /** It saw a multi-table load in some tables and not the others. */
    readonly split: boolean;
    /** It saw part of a load. */
    readonly fractured: boolean;
  }[];
}

/** A class's line of the report: its scenarios, their verdicts merged and their tallies added. */
export interface ClassReport {
  readonly guarantee: DeliveryGuarantee;
  readonly verdict: Verdict;
  readonly tally: Tally;
  readonly performance: InsertPerformance;
  readonly scenarios: readonly ScenarioReport[];
}

/**
 * What a chaos job was asked to run, beside its seed, profile, backend and slice: enough to
 * recompute from the catalogue the class x scenario pairs of its matrix, and of each slice.
 */
export interface JobSelection {
  /** The classes, in the order the matrix takes them. */
  readonly classes: readonly JudgedClassName[];
  /** The scenario names, in the order the matrix takes them. */
  readonly scenarios: readonly string[];
  readonly serverDedup: string;
  /** The replayed case (`--path`), or null. */
  readonly path: string | null;
}

/** A whole chaos job (or the slices a merge joined): what `run-result.json` stores and every reporter renders. */
export interface JobReport {
  readonly runId: RunId;
  readonly backend: string;
  readonly backendLimits: readonly string[];
  /** The fault proxy of a cluster the job started (`builtin`, `toxiproxy`); null or absent: an attached cluster's own, or none. */
  readonly faultProxy?: string | null;
  readonly seed: Seed;
  readonly profile: string;
  /** `I/N` when the run was one slice of the class x scenario matrix (`--shard`), or the slices a merged report joined. */
  readonly slice: string | null;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly clusterStartMs: number;
  /** Current and peak RSS per cluster process at the end of the run; null where the backend does not see them. */
  readonly clusterMemory: Readonly<Record<string, ProcessMemory>> | null;
  readonly verdict: Verdict;
  readonly classes: Readonly<Record<string, ClassReport>>;
  /** A signal stopped the run before every pair was judged: its command exited 130 / 143. */
  readonly interrupted: boolean;
  readonly selection: JobSelection;
  /** The git commit the harness ran from (`+changes` when the tree had uncommitted edits), null outside a checkout. */
  readonly commit: string | null;
}
