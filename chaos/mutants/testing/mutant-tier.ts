import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { componentLogger, seedOf } from '../../../harness/base/index.ts';
import type { StartedLocalCluster } from '../../../harness/cluster/index.ts';
import { startEmbeddedCluster } from '../../../harness/cluster/embedded/start-embedded.ts';
import { BUDGETS, runScenario, scenarioReport } from '../../executor/index.ts';
import { startedClusterJournal, UndoJournal } from '../../nemeses/index.ts';
import { MUTANTS, type MutantName } from '../catalogue.ts';
import { caughtInCategory } from '../detection.ts';
import { sinkHostFor } from '../mutant-host.ts';
import { MUTANT_TARGETS } from '../targets.ts';
import { type ClusterShape, DEFAULT_SHAPE, shapeArgument } from '../../scenarios/index.ts';

// Each deliberately broken sink must be flagged by the same checkers that pass the real sinks,
// in the category its breakage produces and no other it does not explain, with a replayable
// counterexample — under the default options (server dedup alternating), in the catalogue
// scenario that targets it. The unmutated sink on the same seed and scenario is the control and
// must pass: checkers that flag everything would otherwise catch every mutant.
const SEED = seedOf(20261129);

type Target = (typeof MUTANT_TARGETS)[MutantName];

/**
 * Declares one test tier over `mutants` on one cluster: a control per scenario they run in (on
 * the class of the first mutant there; a control per class x scenario nearly doubles the time,
 * `npm run mutants` runs every target's), each mutant caught in category, and, when `replayed`
 * is given, its counterexample's replay line failing again. No shrinking: what is under test is
 * that each breakage is caught and replayable (`npm run mutants` measures the rest).
 */
export function describeMutantTier(title: string, mutants: readonly MutantName[], replayed?: MutantName): void {
  // One cluster per shape the tier's targets need, started when first needed; one at a time.
  let current:
    { readonly shape: string; readonly cluster: StartedLocalCluster; readonly journal: UndoJournal } | undefined;
  const reports = mkdtempSync(join(tmpdir(), 'mutants-'));

  const down = async () => {
    current?.journal.close();
    await current?.cluster.down();
    current = undefined;
  };
  const clusterOf = async (shape: ClusterShape = DEFAULT_SHAPE) => {
    if (current?.shape === shapeArgument(shape)) return current;
    await down();
    const cluster = await startEmbeddedCluster({ topology: { ...shape, keepers: 1 } });
    current = {
      shape: shapeArgument(shape),
      cluster,
      journal: new UndoJournal(startedClusterJournal(cluster), cluster),
    };
    return current;
  };

  afterAll(async () => {
    await down();
    rmSync(reports, { recursive: true, force: true });
  });

  const runAt = async ({ sinkClass, scenario, shape }: Target, subject: MutantName | 'control', path?: string) => {
    const { cluster, journal } = await clusterOf(shape);
    return runScenario({
      cluster,
      journal,
      scenario,
      sinkClass,
      // The base volume: a planted bug shows at any volume, and the chaos job runs the profile's (an
      // at-most-once pair wrote 2,355 INSERTs in one 47 s run at the `ci` volume).
      budget: { ...BUDGETS.ci, shrinkMs: 0, volume: 1 },
      seed: SEED,
      path,
      dir: join(reports, `${subject}__${sinkClass}__${scenario.name}${path === undefined ? '' : '-replay'}`),
      log: componentLogger('mutant-test', { subject }),
      host: sinkHostFor(subject),
      serverDedup: 'alternate',
    });
  };
  const run = (mutant: MutantName, path?: string) => runAt(MUTANT_TARGETS[mutant], mutant, path);

  const targets = mutants.map((mutant) => MUTANT_TARGETS[mutant]);
  const controls = targets.filter(
    (target, index) =>
      targets.findIndex(
        (other) =>
          other.scenario.name === target.scenario.name && shapeArgument(other.shape) === shapeArgument(target.shape),
      ) === index,
  );
  const caughtPaths = new Map<MutantName, string>();

  describe(`${title} (seed ${SEED})`, () => {
    for (const target of controls) {
      it(`control: the unmutated ${target.sinkClass} passes ${target.scenario.name}`, async () => {
        const result = scenarioReport(target.scenario, target.sinkClass, await runAt(target, 'control'), SEED);
        expect(
          result.verdict,
          [...result.anomalies.map((anomaly) => `${anomaly.category}×${anomaly.count}`), ...result.notes].join('; '),
        ).toBe('pass');
      });
    }

    for (const mutant of mutants) {
      const { sinkClass, scenario: definition } = MUTANT_TARGETS[mutant];
      it(`${mutant} → ${MUTANTS[mutant].category} in ${definition.name}`, async () => {
        const outcome = await run(mutant);
        expect(
          outcome.runs.filter((r) => r.infraError !== undefined).map((r) => r.infraError),
          'no run is a harness failure',
        ).toEqual([]);
        const result = scenarioReport(definition, sinkClass, outcome, SEED);
        const categories = result.anomalies.map((anomaly) => anomaly.category);
        expect(result.verdict).toBe('violation');
        expect(
          caughtInCategory(mutant, result.verdict, categories),
          `caught in ${categories.join(', ')}: only ${MUTANTS[mutant].category} and what ALSO_CAUGHT_IN explains count`,
        ).toBe(true);
        expect(result.path).toBeDefined();
        expect(result.replayCommand).toContain(`--seed ${SEED} --path ${result.path}`);
        expect(result.commands.length).toBeGreaterThan(0);
        if (result.path !== undefined) caughtPaths.set(mutant, result.path);
      });
    }

    if (replayed !== undefined)
      it(`the replay line reproduces a caught mutant (${replayed}): its first run is the counterexample, failing again`, async () => {
        const path = caughtPaths.get(replayed);
        expect(path, 'the mutant was caught above').toBeDefined();
        const outcome = await run(replayed, path);
        expect(outcome.runs[0]?.check?.verdict).toBe('violation');
        const { scenario, sinkClass } = MUTANT_TARGETS[replayed];
        const result = scenarioReport(scenario, sinkClass, outcome, SEED);
        const categories = result.anomalies.map((anomaly) => anomaly.category);
        expect(caughtInCategory(replayed, result.verdict, categories), categories.join(', ')).toBe(true);
      });
  });
}
