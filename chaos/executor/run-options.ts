import type { Logger } from 'pino';
import type { StartedCluster } from '../../harness/cluster/index.ts';
import type { SinkClassName } from '../../sinks/index.ts';
import type { UndoJournal } from '../nemeses/index.ts';
import type { ScenarioDefinition } from '../scenarios/index.ts';
import type { RunBudget, ServerDedupMode } from './run-budget.ts';
import type { RunInput } from './run-input.ts';
import type { SinkHost } from './sink-host.ts';

export interface ScenarioRunOptions {
  readonly cluster: StartedCluster;
  /** The cluster's undo journal: every run records there what it does to the cluster before doing it. */
  readonly journal: UndoJournal;
  /** Aborted by an interrupt: the run in flight stops, undoes what it did, and no other run starts. */
  readonly signal?: AbortSignal | undefined;
  readonly scenario: ScenarioDefinition;
  readonly sinkClass: SinkClassName;
  readonly budget: RunBudget;
  readonly seed: number;
  readonly path?: string | undefined;
  /** A stored run input to replay (`--schedule FILE`): one run of exactly it, nothing generated, nothing shrunk. */
  readonly schedule?: RunInput | undefined;
  readonly dir: string;
  readonly log: Logger;
  /** How the sink workers are hosted: the real sinks, or a deliberately broken one (the checkers' self-test). */
  readonly host: SinkHost;
  /**
   * For the classes that send no token: ClickHouse's own block dedup drops a replayed identical
   * block by content hash, which would hide a sink that re-inserts. `alternate` (the default)
   * turns it off (`replicated_deduplication_window = 0`) on every other run, first run included.
   */
  readonly serverDedup: ServerDedupMode;
  /**
   * Run databases are `<prefix>_<random>_<class>_<scenario>_<n>`: a chaos job's own tag (its run
   * id) and 48 random bits per run keep them apart from anything else on a cluster it did not start.
   */
  readonly databasePrefix?: string;
}
