import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import {
  availableMemoryMiB,
  kafkaClasspath,
  memoryShortfall,
  parseBackend,
  parseProxyServer,
  type ProxyServerKind,
  readClusterFile,
} from '../harness/cluster/index.ts';
import { HarnessError, type Seed, seedOf } from '../harness/base/index.ts';
import { lanesOption } from '../harness/cli/index.ts';
import { JUDGED_CLASS_NAMES, type JudgedClassName, KAFKA_ENGINE_CLASS } from '../properties/base/index.ts';
import type { ChaosBackend } from './chaos-run.ts';
import { type Profile, readScheduleFile, SERVER_DEDUP_MODES, type ServerDedupMode } from './executor/index.ts';
import type { ScheduleFile } from '../properties/schedule/index.ts';
import { keepersFor } from './runnable.ts';
import { type ClusterShape, parseShape } from './scenarios/index.ts';
import {
  findJobScenarios,
  isEngineScenario,
  isSinkScenario,
  isStagedScenario,
  type JobScenario,
} from './job-catalogue.ts';
import { ENGINE_BROKERS } from './kafka-engine/index.ts';

/** The options `npm run chaos` and `npm run soak` share, as `parseArgs` definitions. */
export const SELECTION_OPTIONS = {
  backend: { type: 'string', default: 'embedded' },
  cluster: { type: 'string' },
  seed: { type: 'string' },
  sink: { type: 'string' },
  scenario: { type: 'string' },
  'server-dedup': { type: 'string', default: 'alternate' },
  shape: { type: 'string' },
  proxy: { type: 'string' },
  lanes: { type: 'string' },
} as const;

export interface Selection {
  readonly backend: ChaosBackend;
  /** The external backend's cluster file, absolute. */
  readonly clusterFile?: string;
  /** Random when not given. */
  readonly seed: Seed;
  readonly classes: JudgedClassName[];
  readonly scenarios: JobScenario[];
  readonly serverDedup: ServerDedupMode;
  /** The shape of the cluster the job starts; undefined: 2 shards x 2 replicas named s1, s2. */
  readonly shape?: ClusterShape;
  /** The fault proxy of the clusters the job starts; undefined on an attached cluster (it runs its own). */
  readonly proxyServer?: ProxyServerKind;
  /** How many of the job's clusters run at once; 1 on an attached cluster. */
  readonly lanes: number;
}

/**
 * Class names, short or as the C++ classes are spelt (`NYT::NFlow::TClickHouseBatchingSink`), and
 * the Kafka engine (`ClickHouseKafkaEngine`).
 */
export function parseClasses(value: string | undefined): JudgedClassName[] {
  if (value === undefined) return [...JUDGED_CLASS_NAMES];
  return value.split(',').map((raw) => {
    const name = raw
      .trim()
      .replace(/^NYT::NFlow::/, '')
      .replace(/^T(?=[A-Z])/, '');
    const found = JUDGED_CLASS_NAMES.find((candidate) => candidate === name);
    if (found === undefined)
      throw new HarnessError('CLI_USAGE', `unknown sink class '${raw}'; choose from ${JUDGED_CLASS_NAMES.join(', ')}`);
    return found;
  });
}

export function parseProfile(value: string): Profile {
  if (value !== 'ci' && value !== 'full')
    throw new HarnessError('CLI_USAGE', `--profile must be ci or full, got '${value}'`);
  return value;
}

/**
 * Everything is checked before a command creates anything: bad input leaves no trace. Without
 * `--sink`, the classes are those a selected scenario covers (a class with nothing to run would
 * only report `inconclusive`); a class named with `--sink` that no selected scenario covers is
 * an error.
 */
export function parseSelection(
  values: {
    backend: string;
    cluster?: string | undefined;
    seed?: string | undefined;
    sink?: string | undefined;
    scenario?: string | undefined;
    'server-dedup'?: string | undefined;
    shape?: string | undefined;
    proxy?: string | undefined;
    lanes?: string | undefined;
  },
  profile: Profile,
  availableMiB: () => number = availableMemoryMiB,
  cores: number = availableParallelism(),
  brokersInstalled: () => unknown = kafkaClasspath,
): Selection {
  const shape = values.shape === undefined ? undefined : parseShape(values.shape, values.backend);
  const serverDedup = values['server-dedup'] ?? 'alternate';
  if (!SERVER_DEDUP_MODES.includes(serverDedup as ServerDedupMode))
    throw new HarnessError(
      'CLI_USAGE',
      `--server-dedup must be ${SERVER_DEDUP_MODES.join(', ')}, got '${serverDedup}'`,
    );
  if (values.seed !== undefined && !/^-?\d+$/.test(values.seed))
    throw new HarnessError('CLI_USAGE', `--seed takes an integer, got '${values.seed}'`);
  const scenarios = findJobScenarios(
    values.scenario?.split(',').map((name) => name.trim()),
    profile,
  );
  if (shape !== undefined) {
    // A shape asked for that this machine cannot hold is refused before anything starts.
    const keepers = Math.max(
      1,
      ...scenarios.map((scenario) =>
        isSinkScenario(scenario) ? keepersFor(scenario) : isStagedScenario(scenario) ? scenario.keepers : 1,
      ),
    );
    const kafka = scenarios.some(isEngineScenario) ? ENGINE_BROKERS : 0;
    const short = memoryShortfall({ ...shape, keepers, kafka }, availableMiB());
    if (short !== undefined)
      throw new HarnessError('CLI_USAGE', `--shape ${values.shape}: ${short}; give a smaller shape`);
  }
  const covered = (sinkClass: JudgedClassName) =>
    scenarios.some((scenario) => (scenario.classes as readonly JudgedClassName[]).includes(sinkClass));
  const named = parseClasses(values.sink);
  const uncovered = named.filter((sinkClass) => !covered(sinkClass));
  if (values.sink !== undefined && uncovered.length > 0) {
    throw new HarnessError(
      'CLI_USAGE',
      `no selected scenario covers ${uncovered.join(', ')}: ${scenarios.map((scenario) => `${scenario.name} covers ${scenario.classes.join(', ')}`).join('; ')}`,
    );
  }
  const target = parseTarget(values.backend, values.cluster);
  const proxyServer =
    target.backend === 'external' && values.proxy === undefined
      ? undefined
      : parseProxyServer(values.proxy, target.backend);
  const classes = named.filter(covered);
  // The Kafka engine's cluster may start last in a job: brokers that are not installed are said
  // now, before anything starts, not after every other pair ran.
  const startsBrokers = target.backend === 'embedded' || target.backend === 'binary';
  if (startsBrokers && classes.includes(KAFKA_ENGINE_CLASS) && scenarios.some(isEngineScenario)) brokersInstalled();
  return {
    seed: seedOf(values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed), '--seed'),
    ...target,
    lanes: parseLanes(values.lanes, target.backend, cores),
    ...(proxyServer === undefined ? {} : { proxyServer }),
    classes,
    scenarios,
    serverDedup: serverDedup as ServerDedupMode,
    ...(shape === undefined ? {} : { shape }),
  };
}

/**
 * `--lanes N`: the job's clusters (the default shape, the drawn one, the brokers', the staged
 * loader's) run N at a time, each its own processes and proxy, so nothing one pair does reaches
 * another's cluster. An attached cluster is one cluster: its pairs run one at a time.
 */
function parseLanes(value: string | undefined, backend: ChaosBackend, cores: number): number {
  if (value === undefined && backend === 'external') return 1;
  const lanes = lanesOption(value, cores);
  if (backend === 'external' && lanes !== 1)
    throw new HarnessError(
      'CLI_USAGE',
      `--lanes ${value}: an attached cluster is one cluster and runs its pairs one at a time; drop --lanes`,
    );
  return lanes;
}

/** `--backend external` attaches to the cluster `--cluster FILE` describes; every other backend starts its own. */
function parseTarget(backend: string, cluster: string | undefined): { backend: ChaosBackend; clusterFile?: string } {
  if (backend !== 'external') {
    if (cluster !== undefined)
      throw new HarnessError(
        'CLI_USAGE',
        `--cluster describes a cluster to attach to: it goes with --backend external, not ${backend}`,
      );
    return { backend: parseBackend(backend) };
  }
  if (cluster === undefined)
    throw new HarnessError(
      'CLI_USAGE',
      '--backend external needs --cluster FILE: the JSON `npm run cluster -- up` prints, with process_commands for the process faults',
    );
  if (!existsSync(cluster)) throw new HarnessError('CLI_USAGE', `--cluster ${cluster}: no such file`);
  readClusterFile(cluster);
  return { backend: 'external', clusterFile: resolve(cluster) };
}

/**
 * `--path` replays one case of one seed's generation for one class x scenario: without its
 * seed, or with several pairs, it would replay a case nobody saw fail. Checked with the other
 * options, before a cluster starts (fast-check itself reads the path only once the runs begin).
 */
export function parseReplayPath(values: {
  path?: string | undefined;
  seed?: string | undefined;
  sink?: string | undefined;
  scenario?: string | undefined;
}): string | undefined {
  if (values.path === undefined) return undefined;
  if (values.seed === undefined)
    throw new HarnessError(
      'CLI_USAGE',
      '--path replays a case of a given seed: give --seed with it (the replay line in report.md has both)',
    );
  if (!/^\d+(:\d+)*$/.test(values.path))
    throw new HarnessError(
      'CLI_USAGE',
      `--path takes fast-check's replay path, numbers joined by ':' (e.g. 0:1), got '${values.path}'`,
    );
  const single = (value: string | undefined) => value !== undefined && !value.includes(',');
  if (!single(values.sink) || !single(values.scenario))
    throw new HarnessError(
      'CLI_USAGE',
      '--path names a case of one class x scenario: give exactly one --sink and one --scenario with it (the replay line in report.md has them)',
    );
  return values.path;
}

/**
 * `--schedule FILE` replays a stored run input (a run directory's `schedule.json`): one run of one
 * class x scenario, nothing generated. The file is read and checked here, with the other options,
 * before a cluster starts: a wrong version, an unknown kind of step or fault family, or a malformed
 * field is one line naming it.
 */
export function parseReplaySchedule(values: {
  schedule?: string | undefined;
  path?: string | undefined;
  sink?: string | undefined;
  scenario?: string | undefined;
}): ScheduleFile | undefined {
  if (values.schedule === undefined) return undefined;
  if (values.path !== undefined)
    throw new HarnessError(
      'CLI_USAGE',
      '--schedule replays a stored run input and --path a generated case: give one of them',
    );
  const single = (value: string | undefined) => value !== undefined && !value.includes(',');
  if (!single(values.sink) || !single(values.scenario))
    throw new HarnessError(
      'CLI_USAGE',
      '--schedule replays one run of one class x scenario: give exactly one --sink and one --scenario with it (the run directory names them)',
    );
  const file = readScheduleFile(values.schedule);
  const [sinkClass] = parseClasses(values.sink);
  if (file.spec.sink_class_name !== sinkClass)
    throw new HarnessError(
      'CLI_USAGE',
      `--schedule ${values.schedule} starts a ${file.spec.sink_class_name} (spec.sink_class_name), not the --sink ${sinkClass}`,
    );
  return file;
}
