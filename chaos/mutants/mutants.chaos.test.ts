import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedLocalCluster } from '../../harness/cluster/local-cluster.ts';
import { startEmbeddedCluster } from '../../harness/cluster/embedded/start-embedded.ts';
import { componentLogger } from '../../harness/log.ts';
import { BUDGETS } from '../executor/run-budget.ts';
import { runScenario } from '../executor/run-scenario.ts';
import { startedClusterJournal, UndoJournal } from '../nemeses/undo-journal.ts';
import { scenarioResult } from '../executor/scenario-result.ts';
import { MUTANTS, type MutantName } from './catalogue.ts';
import { MUTANT_TARGETS } from './targets.ts';

// Each deliberately broken sink must be flagged by the same checkers that pass the real sinks,
// in the category its breakage produces, with a replayable (shrunk) counterexample — under the
// default options (server dedup alternating), in the catalogue scenario that targets it.
const SEED = 20261129;
let cluster: StartedLocalCluster;
let journal: UndoJournal;
const reports = mkdtempSync(join(tmpdir(), 'mutants-'));

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ topology: { shards: 2, replicas: 2, keepers: 1 } });
  journal = new UndoJournal(startedClusterJournal(cluster), cluster);
});

afterAll(async () => {
  await cluster?.down();
  rmSync(reports, { recursive: true, force: true });
});

/** No shrinking here: what is under test is that each breakage is caught and replayable (`npm run mutants` measures the rest). */
const run = (mutant: MutantName, path?: string) => {
  const { sinkClass, scenario: definition } = MUTANT_TARGETS[mutant];
  return runScenario({
    cluster,
    journal,
    scenario: definition,
    sinkClass,
    budget: { ...BUDGETS.ci, shrinkMs: 0 },
    seed: SEED,
    path,
    dir: join(reports, path === undefined ? mutant : `${mutant}-replay`),
    log: componentLogger('mutant-test', { mutant }),
    mutant,
    serverDedup: 'alternate',
  });
};

const caughtPaths = new Map<MutantName, string>();

describe(`mutant sinks are caught (seed ${SEED})`, () => {
  for (const [mutant, { sinkClass, scenario: definition }] of Object.entries(MUTANT_TARGETS) as [
    MutantName,
    (typeof MUTANT_TARGETS)[MutantName],
  ][]) {
    it(`${mutant} → ${MUTANTS[mutant].category} in ${definition.name}`, async () => {
      const outcome = await run(mutant);
      expect(
        outcome.runs.filter((r) => r.infraError !== undefined).map((r) => r.infraError),
        'no run is a harness failure',
      ).toEqual([]);
      const result = scenarioResult(definition, sinkClass, outcome, SEED);
      expect(result.verdict).toBe('violation');
      expect(result.anomalies.map((anomaly) => anomaly.category)).toContain(MUTANTS[mutant].category);
      expect(result.path).toBeDefined();
      expect(result.replayCommand).toContain(`--seed ${SEED} --path ${result.path}`);
      expect(result.commands.length).toBeGreaterThan(0);
      if (result.path !== undefined) caughtPaths.set(mutant, result.path);
    });
  }

  it('the replay line reproduces a caught mutant: its first run is the counterexample, failing again', async () => {
    const mutant: MutantName = 'at-least-once-commits-first';
    const path = caughtPaths.get(mutant);
    expect(path, 'the mutant was caught above').toBeDefined();
    const outcome = await run(mutant, path);
    expect(outcome.runs[0]?.check?.verdict).toBe('violation');
    const result = scenarioResult(MUTANT_TARGETS[mutant].scenario, MUTANT_TARGETS[mutant].sinkClass, outcome, SEED);
    expect(result.verdict).toBe('violation');
    expect(result.anomalies.map((anomaly) => anomaly.category)).toContain(MUTANTS[mutant].category);
  });
});
