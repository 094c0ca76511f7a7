import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { HarnessError } from '../../harness/base/index.ts';
import { clusterEndpoints, type RawSinkSpec, type Workload } from '../../properties/arbitraries/index.ts';
import {
  parseScheduleFile,
  type Schedule,
  SCHEDULE_FILE,
  SCHEDULE_FILE_VERSION,
  type ScheduleFile,
  type ScheduleStep,
} from '../../properties/schedule/index.ts';
import type { SinkClassName } from '../../sinks/index.ts';
import { checkFaultSpec } from '../nemeses/index.ts';

/** A run's input as the executor holds it (`RunInput`). */
interface RunInputOf {
  readonly workload: Workload;
  readonly spec: RawSinkSpec;
  readonly schedule: Schedule;
  readonly sourceSeed: number;
}

/** Writes the run's whole input beside its history, before it runs: a run that breaks mid-way is replayable too. */
export function writeScheduleFile(dir: string, input: RunInputOf, serverDedupOff: boolean): void {
  const file: ScheduleFile = {
    version: SCHEDULE_FILE_VERSION,
    sourceSeed: input.sourceSeed,
    serverDedupOff,
    workload: input.workload,
    spec: input.spec,
    steps: input.schedule,
  };
  writeFileSync(join(dir, SCHEDULE_FILE), `${JSON.stringify(file, null, 2)}\n`);
}

/** A run's directory inside its class x scenario directory: `run-<index>`. */
export const runDirName = (index: number): string => `run-${index}`;

/** A path as one shell word: left bare when it holds nothing a shell reads, single-quoted otherwise. */
const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * The command that replays one stored run from its `schedule.json` (`scenarioDir`: the class x
 * scenario directory of the job's report, `<report dir>/<run id>/<class>__<scenario>`): exactly
 * that input, so it holds after the generators changed, unlike `--seed … --path …`.
 */
export function scheduleReplayCommand(run: {
  readonly sinkClass: SinkClassName;
  readonly scenario: string;
  readonly scenarioDir: string;
  readonly runIndex: number;
}): string {
  const file = join(run.scenarioDir, runDirName(run.runIndex), SCHEDULE_FILE);
  return `npm run chaos -- --sink ${run.sinkClass} --scenario ${run.scenario} --schedule ${shellWord(file)}`;
}

/** Reads and checks a stored `schedule.json` (`--schedule FILE`): one line naming what is wrong, before anything starts. */
export function readScheduleFile(path: string): ScheduleFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HarnessError(
      'CLI_USAGE',
      `--schedule ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      {
        cause: error,
      },
    );
  }
  return parseScheduleFile(text, path, checkFaultSpec);
}

/** The run input a stored schedule replays. */
export const runInputOf = (file: ScheduleFile): RunInputOf => ({
  workload: file.workload,
  spec: file.spec,
  schedule: file.steps,
  sourceSeed: file.sourceSeed,
});

/** The hosts a spec names (`host`, `hosts`, `shard_hosts`). */
function namedHosts(parameters: Readonly<Record<string, unknown>>): string[] {
  const lists = [
    parameters.host,
    parameters.hosts,
    ...Object.values((parameters.shard_hosts as object | undefined) ?? {}),
  ];
  return lists.flatMap((value) => (Array.isArray(value) ? value : value === undefined ? [] : [value])).map(String);
}

/**
 * A stored run input on the cluster at hand. Its specs name the replicas by host and one client
 * port; the hosts of a backend are fixed (`127.10.<shard>.<replica>` on the local ones), but a
 * cluster started anew listens on another port, so the replay puts its cluster's port in. A spec
 * naming a host this cluster does not have was written on another layout: refused, not guessed.
 */
export function onCluster(input: RunInputOf, description: ClusterDescription): RunInputOf {
  const { port, shards } = clusterEndpoints(description);
  const hosts = new Set([...shards.values()].flat());
  const rebind = (spec: RawSinkSpec): RawSinkSpec => {
    const unknown = namedHosts(spec.parameters).filter((host) => !hosts.has(host));
    if (unknown.length > 0)
      throw new HarnessError(
        'SCHEDULE_CLUSTER_MISMATCH',
        `the stored schedule names ${unknown.join(', ')}, which this cluster does not have (${[...hosts].join(', ')}): replay it on a cluster of the layout it ran on`,
      );
    return 'port' in spec.parameters ? { ...spec, parameters: { ...spec.parameters, port } } : spec;
  };
  const step = (each: ScheduleStep): ScheduleStep =>
    each.kind === 'restart-with-spec' || each.kind === 'hold-and-write' ? { ...each, spec: rebind(each.spec) } : each;
  return { ...input, spec: rebind(input.spec), schedule: input.schedule.map(step) };
}
