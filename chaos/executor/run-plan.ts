import { join } from 'node:path';
import type { Logger } from 'pino';
import type { SettingProfile, StartedCluster } from '../../harness/cluster/index.ts';
import { DEFAULT_COLUMNS, sourceConfig, type SourceConfig } from '../../harness/flow/index.ts';
import type { SinkClassName } from '../../sinks/index.ts';
import type { UndoJournal } from '../nemeses/index.ts';
import type { ScenarioDefinition, TargetTable } from '../scenarios/index.ts';
import type { RunTicket } from './exploration.ts';
import type { RunInput } from './run-input.ts';
import type { ScenarioRunOptions } from './run-options.ts';
import { runDatabaseName } from './run-database.ts';
import { runDirName } from './schedule-file.ts';
import type { WorkerHosting } from './sink-host.ts';
import { TABLE } from './target-table.ts';

/** What the phases of every run of a scenario act through. */
export interface RunContext {
  readonly cluster: StartedCluster;
  readonly journal: UndoJournal;
  readonly log: Logger;
  readonly hosting: WorkerHosting;
}

/**
 * Everything one run is, worked out once before it starts and read by every phase: which case of
 * which seed, where it writes, what it writes to and under which settings, and what it runs
 * (`input`: the workload, the starting spec, the schedule).
 */
export interface RunPlan {
  readonly seed: number;
  readonly path: string | undefined;
  readonly sinkClass: SinkClassName;
  readonly scenario: ScenarioDefinition;
  readonly index: number;
  readonly phase: RunTicket['phase'];
  /** The run's directory: state store, history, check record, dumps. */
  readonly dir: string;
  readonly database: string;
  /** The run's target has ClickHouse's block dedup off. */
  readonly serverDedupOff: boolean;
  /** The profile the sink's user must carry, that user on this cluster (none named: the run cannot start), replicas per shard. */
  readonly settingProfile?: {
    readonly name: SettingProfile;
    readonly user: string | undefined;
    readonly replicas: number;
  };
  readonly target: TargetTable;
  /** The run's table, by base name (`<table>_rep`, `<table>_dist`). */
  readonly table: string;
  readonly source: SourceConfig;
  readonly input: RunInput;
}

export function planRun(options: ScenarioRunOptions, input: RunInput, ticket: RunTicket): RunPlan {
  const description = options.cluster.description;
  const profile = options.scenario.settingProfile?.(ticket.serverDedupOff);
  return {
    seed: options.seed,
    path: options.path,
    sinkClass: options.sinkClass,
    scenario: options.scenario,
    index: ticket.index,
    phase: ticket.phase,
    dir: join(options.dir, runDirName(ticket.index)),
    database: runDatabaseName(
      options.databasePrefix ?? 'chaos',
      options.sinkClass,
      options.scenario.name,
      ticket.index,
    ),
    serverDedupOff: ticket.serverDedupOff,
    ...(profile === undefined
      ? {}
      : {
          settingProfile: {
            name: profile,
            user: description.setting_users?.[profile],
            replicas: Math.min(...description.shards.map((shard) => shard.replicas.length)),
          },
        }),
    target: options.scenario.target ?? 'replicated',
    table: TABLE,
    source: sourceConfig({
      seed: input.sourceSeed,
      partitions: input.workload.partitions,
      messagesPerEpoch: input.workload.messagesPerEpoch,
      keySpace: input.workload.keySpace,
      payloadBytes: input.workload.payloadBytes,
      tableShuffle: input.workload.tableShuffle,
      columns: [...DEFAULT_COLUMNS, ...input.workload.typedColumns.map((name) => ({ name, role: 'typed' as const }))],
    }),
    input,
  };
}
