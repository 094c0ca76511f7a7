import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Seed } from '../../harness/base/index.ts';
import type { StartedCluster } from '../../harness/cluster/index.ts';
import { anomalyKind } from '../../properties/checkers/index.ts';
import type { Detection, MatrixRow, ScenarioReport } from '../../reports/results/index.ts';
import type { StagedPartitionLoader } from '../../sinks/index.ts';
import type { ServerDedupMode } from '../executor/index.ts';
import type { UndoJournal } from '../nemeses/index.ts';
import { runStagedScenario, STAGED_SCENARIOS } from '../staged-publication/index.ts';
import { createMutatedTree } from './mutated-tree.ts';
import { STAGED_MUTANTS, type StagedMutantName } from './staged-mutants.ts';

export const isStagedMutantName = (name: string): name is StagedMutantName => name in STAGED_MUTANTS;

export interface StagedRowOptions {
  readonly seeds: readonly Seed[];
  /** A replayed case (`--path`): one mutant, one seed. */
  readonly path?: string | undefined;
  readonly serverDedup: ServerDedupMode;
  readonly shrink: boolean;
}

/** One row of the matrix: a loader mutant, or the control at the scenario of the mutant it stands beside. */
export type StagedSubject =
  { readonly name: StagedMutantName } | { readonly name: 'control'; readonly controlOf: StagedMutantName };

export const stagedScenarioOf = (subject: StagedSubject): string =>
  STAGED_MUTANTS[subject.name === 'control' ? subject.controlOf : subject.name].scenario;

/** The loader a subject runs: the repository's for a control, one from a mutated tree for a mutant. */
export async function loaderOf(
  subject: StagedMutantName | 'control',
  dir: string,
): Promise<typeof StagedPartitionLoader | undefined> {
  if (subject === 'control') return undefined;
  const tree = createMutatedTree(subject, STAGED_MUTANTS[subject], dir);
  const module = (await import(join(tree, 'sinks/staged/staged-partition-loader.ts'))) as {
    StagedPartitionLoader: typeof StagedPartitionLoader;
  };
  return module.StagedPartitionLoader;
}

/**
 * Caught, for the loader's mutants, is as strict as for the sinks': a violation holding the
 * mutant's category and no other (none of these mutants' breakage explains a second one).
 */
function stagedDetection(report: ScenarioReport, seed: Seed, subject: StagedSubject): Detection {
  const mutant = subject.name === 'control' ? undefined : subject.name;
  const categories = [...new Set(report.anomalies.map((found) => found.category))];
  const violation = report.verdict === 'violation';
  const kinds = categories.map(anomalyKind);
  return {
    seed,
    verdict: report.verdict,
    caughtInCategory:
      mutant !== undefined &&
      violation &&
      kinds.includes(STAGED_MUTANTS[mutant].category) &&
      kinds.every((kind) => kind === STAGED_MUTANTS[mutant].category),
    categories,
    // Exploring stops at the first violation: every explored run up to it.
    ...(violation ? { runsToDetection: report.runs } : {}),
    ...(violation && report.shrinkRuns === 0 ? { secondsToDetection: report.durationMs / 1000 } : {}),
    replayCommand: `npm run mutants -- ${subject.name === 'control' ? `--control-only --mutant ${subject.controlOf}` : `--no-control --mutant ${subject.name}`} --seeds 1 --seed ${seed}${report.path === undefined ? '' : ` --path ${report.path}`}`,
    infraErrors: report.verdict === 'infra-error' ? 1 : 0,
  };
}

/** One loader mutant (or the loader's control at a mutant's scenario) over every seed: its row of the matrix. */
export async function stagedRow(
  subject: StagedSubject,
  options: StagedRowOptions,
  cluster: StartedCluster,
  journal: UndoJournal,
  dir: string,
  log: Logger,
): Promise<MatrixRow> {
  const scenario = STAGED_SCENARIOS.find((entry) => entry.name === stagedScenarioOf(subject));
  if (scenario === undefined) throw new Error(`no staged scenario ${stagedScenarioOf(subject)}`);
  const loader = await loaderOf(subject.name, dir);
  const mutant = subject.name === 'control' ? undefined : subject.name;
  const detections: Detection[] = [];
  for (const seed of options.seeds) {
    const report = await runStagedScenario({
      cluster,
      journal,
      scenario,
      profile: 'ci',
      seed,
      path: options.path,
      dir: join(dir, `${subject.name}__StagedPartitionLoader__${scenario.name}`, String(seed)),
      databasePrefix: 'mutants',
      serverDedup: options.serverDedup,
      log: log.child({ subject: subject.name, seed }),
      loader,
      shrink: options.shrink,
    });
    const found = stagedDetection(report, seed, subject);
    detections.push(found);
    process.stderr.write(
      `mutants: ${subject.name} / StagedPartitionLoader / ${scenario.name} seed ${seed}: ${mutant === undefined ? found.verdict : found.caughtInCategory ? `caught (${found.categories.join(', ')}) in run ${found.runsToDetection}` : `MISSED: ${found.verdict}`}\n`,
    );
  }
  const entry = mutant === undefined ? undefined : STAGED_MUTANTS[mutant];
  return {
    subject: subject.name,
    kind: entry === undefined ? 'control' : 'source',
    sinkClass: 'StagedPartitionLoader',
    scenario: scenario.name,
    category: entry?.category ?? null,
    why: entry?.why ?? null,
    detections,
  };
}
