/**
 * `npm run mutants -- [--seeds 10] [--seed N] [--mutant NAME[,NAME]] [--scenario NAME]
 * [--no-control] [--no-shrink] [--lanes N] [--report-dir DIR]`: every shipped mutant against the
 * catalogue scenario that targets it (or, with `--scenario`, against that one: to show which
 * scenarios do NOT catch it; the staged loader's mutants, `staged-mutants.ts`, always at their
 * own scenario, on a 1x2 cluster), over N seeds (random and printed, or N in a row from
 * `--seed`), with the chaos job's defaults (the `ci` budget, server dedup alternating), plus the
 * unmutated sink under the same scenarios and seeds as a control. The rows run on up to
 * `--lanes` clusters at once (one per core unless told), each row on one cluster from its first
 * seed to its last. Writes the detection matrix as `summary.json`, `report.md`, `report.html`
 * and `junit.xml` under `<report-dir>/<run-id>/` and prints the table. Exit 0 when every mutant
 * was caught in its category (and no other it does not explain) on every seed and every control
 * run passed; 1 on a finding (a mutant not caught or caught in another category, a control
 * flagged); 3 when nothing was found but a run was not verified (inconclusive, infra-error); 2
 * on bad input.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { installInterrupt, lanesOption, prepareWritableDir } from '../../harness/cli/index.ts';
import type { Logger } from 'pino';
import {
  availableMemoryMiB,
  memoryNeedMiB,
  memoryShortfall,
  runInLanes,
  startCluster,
  type StartedCluster,
} from '../../harness/cluster/index.ts';
import { describeError, fileLogger, HarnessError, newRunId, PROJECT_ROOT, seedOf } from '../../harness/base/index.ts';
import { matrixHtml, matrixJson, matrixJunit, matrixMarkdown } from '../../reports/writers/index.ts';
import { matrixExitStatus, type Detection, type MatrixRow, type MutationMatrix } from '../../reports/results/index.ts';
import { BUDGETS, runScenario, type ServerDedupMode } from '../executor/index.ts';
import { startedClusterJournal, UndoJournal } from '../nemeses/index.ts';
import { findScenarios, type ScenarioDefinition, shapeArgument } from '../scenarios/index.ts';
import { isMutantName, MUTANTS, type MutantName } from './catalogue.ts';
import { detection } from './detection.ts';
import { sinkHostFor } from './mutant-host.ts';
import { STAGED_MUTANTS } from './staged-mutants.ts';
import { isStagedMutantName, type StagedSubject, stagedRow, stagedScenarioOf } from './staged-rows.ts';
import { type RowGroup, rowGroups } from './row-groups.ts';
import { MUTANT_TARGETS, type MutantTarget } from './targets.ts';

interface Subject extends MutantTarget {
  readonly name: MutantName | 'control';
  /** A control's: a mutant whose target it runs at (its replay line names it). */
  readonly controlOf?: MutantName;
}

function parseOptions() {
  const { values } = parseArgs({
    strict: true,
    options: {
      seeds: { type: 'string', default: '10' },
      seed: { type: 'string' },
      mutant: { type: 'string' },
      scenario: { type: 'string' },
      path: { type: 'string' },
      'server-dedup': { type: 'string' },
      'no-control': { type: 'boolean', default: false },
      'control-only': { type: 'boolean', default: false },
      'no-shrink': { type: 'boolean', default: false },
      lanes: { type: 'string' },
      'report-dir': { type: 'string', default: join(PROJECT_ROOT, 'reports', 'mutants') },
    },
  });
  const count = Number(values.seeds);
  if (!Number.isSafeInteger(count) || count < 1)
    throw new HarnessError('CLI_USAGE', `--seeds takes a positive integer, got '${values.seeds}'`);
  if (values.seed !== undefined && !/^\d+$/.test(values.seed))
    throw new HarnessError('CLI_USAGE', `--seed takes an integer, got '${values.seed}'`);
  const named = values.mutant?.split(',') ?? [...Object.keys(MUTANTS), ...Object.keys(STAGED_MUTANTS)];
  for (const name of named)
    if (!isMutantName(name) && !isStagedMutantName(name))
      throw new HarnessError(
        'CLI_USAGE',
        `unknown mutant '${name}'; the mutants are ${[...Object.keys(MUTANTS), ...Object.keys(STAGED_MUTANTS)].join(', ')}`,
      );
  const mutants = named.filter(isMutantName);
  const stagedMutants = named.filter(isStagedMutantName);
  const seeds = Array.from({ length: count }, (_, i) =>
    seedOf(values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed) + i, '--seed'),
  );
  if (values['control-only'] && values['no-control'])
    throw new HarnessError('CLI_USAGE', '--control-only and --no-control leave nothing to run: give one of them');
  // A replay line (`detection.ts`) names one mutant, one seed and the run's shrink path.
  if (values.path !== undefined && (count !== 1 || named.length !== 1))
    throw new HarnessError('CLI_USAGE', '--path replays one run: give it with one --mutant and --seeds 1');
  const dedup = values['server-dedup'];
  if (dedup !== undefined && dedup !== 'on' && dedup !== 'off')
    throw new HarnessError('CLI_USAGE', `--server-dedup takes on or off, got '${dedup}'`);
  const serverDedup: ServerDedupMode = dedup ?? 'alternate';
  let scenario: ScenarioDefinition | undefined;
  try {
    scenario = values.scenario === undefined ? undefined : findScenarios([values.scenario])[0];
  } catch (error) {
    throw new HarnessError('CLI_USAGE', (error as Error).message);
  }
  return {
    mutants,
    stagedMutants,
    scenario,
    seeds,
    path: values.path,
    serverDedup,
    control: !values['no-control'],
    mutantsToo: !values['control-only'],
    shrink: !values['no-shrink'],
    lanes: lanesOption(values.lanes, availableParallelism()),
    reportDir: prepareWritableDir(values['report-dir'], '--report-dir'),
  };
}

/** Each mutant at its target (unless only the controls are asked for); the control once per distinct target (class x scenario). */
function subjects(
  mutants: readonly MutantName[],
  options: { readonly control: boolean; readonly mutantsToo: boolean },
  scenario: ScenarioDefinition | undefined,
): Subject[] {
  const own = mutants.map((name) => ({
    name,
    ...MUTANT_TARGETS[name],
    ...(scenario === undefined ? {} : { scenario }),
  }));
  const targets = new Map(
    own.map((subject) => [`${subject.sinkClass}/${subject.scenario.name}${shapeArgument(subject.shape)}`, subject]),
  );
  const controls = [...targets.values()].map((target) => ({
    ...target,
    name: 'control' as const,
    controlOf: target.name,
  }));
  return [...(options.mutantsToo ? own : []), ...(options.control ? controls : [])];
}

/** One mutant (or control) over every seed on the cluster of its shape: its row of the matrix. */
async function subjectRow(
  subject: Subject,
  options: ReturnType<typeof parseOptions>,
  cluster: StartedCluster,
  journal: UndoJournal,
  dir: string,
  log: Logger,
): Promise<MatrixRow> {
  const entry = subject.name === 'control' ? undefined : MUTANTS[subject.name];
  const detections: Detection[] = [];
  for (const seed of options.seeds) {
    const outcome = await runScenario({
      cluster,
      journal,
      scenario: subject.scenario,
      sinkClass: subject.sinkClass,
      budget: options.shrink ? BUDGETS.ci : { ...BUDGETS.ci, shrinkMs: 0 },
      seed,
      dir: join(dir, `${subject.name}__${subject.sinkClass}__${subject.scenario.name}`, String(seed)),
      log: log.child({ subject: subject.name, seed }),
      serverDedup: options.serverDedup,
      path: options.path,
      host: sinkHostFor(subject.name),
    });
    const found = detection(
      subject.scenario,
      subject.sinkClass,
      outcome,
      seed,
      subject.name === 'control' ? undefined : subject.name,
      subject.controlOf,
    );
    detections.push(found);
    const state =
      entry === undefined
        ? found.verdict
        : found.caughtInCategory
          ? `caught (${found.categories.join(', ')}) in run ${found.runsToDetection}, ${found.secondsToDetection?.toFixed(0)} s`
          : `MISSED: ${found.verdict}${found.categories.length > 0 ? ` (${found.categories.join(', ')})` : ''}`;
    process.stderr.write(
      `mutants: ${subject.name} / ${subject.sinkClass} / ${subject.scenario.name} seed ${seed}: ${state}\n`,
    );
  }
  return {
    subject: subject.name,
    kind: entry?.kind ?? 'control',
    sinkClass: subject.sinkClass,
    scenario: subject.scenario.name,
    category: entry?.category ?? null,
    why: entry?.why ?? null,
    detections,
  };
}

async function main(): Promise<number> {
  const options = parseOptions();
  // The matrix is only worth its full set of seeds: an interrupt tears the clusters down at once.
  installInterrupt({ name: 'mutants', graceMs: 0 });
  const runId = newRunId();
  const dir = join(options.reportDir, runId);
  mkdirSync(dir, { recursive: true });
  const log = fileLogger(join(dir, 'mutants.log'), 'mutants');
  process.stderr.write(
    `mutants: ${options.mutants.join(', ')} over seeds ${options.seeds.join(', ')}; reports in ${dir}\n`,
  );
  const started = Date.now();
  const all = subjects(options.mutants, options, options.scenario);
  const label = (subject: Subject) =>
    `${subject.name} / ${subject.sinkClass} / ${subject.scenario.name}${shapeArgument(subject.shape)}`;
  // The loader's mutants at their own scenarios (`--scenario` names a sinks' one), each scenario's control once.
  const stagedControls = new Map(
    options.stagedMutants.map((name) => [STAGED_MUTANTS[name].scenario, name] as const).reverse(),
  );
  const staged: StagedSubject[] = [
    ...(options.mutantsToo ? options.stagedMutants.map((name) => ({ name })) : []),
    ...(options.control
      ? [...stagedControls.values()].map((controlOf) => ({ name: 'control' as const, controlOf }))
      : []),
  ];
  const stagedLabel = (subject: StagedSubject) =>
    `${subject.name} / StagedPartitionLoader / ${stagedScenarioOf(subject)}`;
  const groups = rowGroups(all, staged, options.lanes, {
    sink: (subject) => ({
      label: label(subject),
      run: (cluster, journal) => subjectRow(subject, options, cluster, journal, dir, log),
    }),
    staged: (subject) => ({
      label: stagedLabel(subject),
      run: (cluster, journal) => stagedRow(subject, options, cluster, journal, dir, log),
    }),
  });
  // The matrix lists its rows in the catalogue's order, whichever lane ends first.
  const ordered = [...all.map(label), ...staged.map(stagedLabel)];
  const finished = new Map<string, MatrixRow>();
  // Written after every row: a run of hours read while it goes, or interrupted, keeps what it finished.
  const write = (): MutationMatrix => {
    const rows = ordered.flatMap((name) => finished.get(name) ?? []);
    const pending = ordered.filter((name) => !finished.has(name));
    const matrix: MutationMatrix = { runId, seeds: options.seeds, durationMs: Date.now() - started, rows, pending };
    writeFileSync(join(dir, 'summary.json'), matrixJson(matrix));
    writeFileSync(join(dir, 'report.md'), matrixMarkdown(matrix));
    writeFileSync(join(dir, 'report.html'), matrixHtml(matrix));
    writeFileSync(join(dir, 'junit.xml'), matrixJunit(matrix));
    return matrix;
  };
  write();
  const topologyOf = (group: RowGroup) => ({ ...group.shape, keepers: 1, kafka: 0 });
  // A lane that fails (a cluster that would not start) ends the matrix once the rows in flight end.
  let failed = false;
  await runInLanes(groups, {
    lanes: options.lanes,
    needMiB: (group) => memoryNeedMiB(topologyOf(group)),
    shortfall: (group, available) => memoryShortfall(topologyOf(group), available),
    availableMiB: availableMemoryMiB,
    stopped: () => failed,
    run: async (group) => {
      try {
        const cluster = await startCluster('embedded', { topology: topologyOf(group), logger: log });
        const journal = new UndoJournal(startedClusterJournal(cluster), cluster);
        try {
          for (const row of group.rows) {
            if (failed) break;
            finished.set(row.label, await row.run(cluster, journal));
            write();
          }
        } finally {
          journal.close();
          await cluster.down();
        }
      } catch (error) {
        failed = true;
        throw error;
      }
    },
    // A shape the machine cannot hold is not started; its rows stay pending (exit 3), said once.
    skip: (group, why) => {
      if ('short' in why)
        process.stderr.write(`mutants: not starting a cluster for ${group.rows.length} row(s): ${why.short}\n`);
    },
  });
  const matrix = write();
  process.stdout.write(matrixMarkdown(matrix));
  return matrixExitStatus(matrix);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`mutants: ${describeError(error)}\n`);
    process.exit(2);
  },
);
