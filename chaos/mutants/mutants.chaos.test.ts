import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Toxiproxy } from 'toxiproxy-node-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedLocalCluster } from '../../harness/cluster/local-cluster.ts';
import { startEmbeddedCluster } from '../../harness/cluster/embedded/start-embedded.ts';
import { componentLogger } from '../../harness/log.ts';
import { arbSinkSpec, type RawSinkSpec, type SpecTarget } from '../../properties/arbitraries/arb-sink-spec.ts';
import { CrashSink, FaultEpisode, WriteEpochs, type ChaosCommand } from '../../properties/model/commands.ts';
import type { SinkClassName } from '../../sinks/domain/sink-class-name.ts';
import { runScenario } from '../executor/run-scenario.ts';
import { scenarioResult } from '../executor/scenario-result.ts';
import { resetPeer } from '../nemeses/toxic-fault.ts';
import { topologyGuardScenario } from '../scenarios/topology-guard.ts';
import type { ScenarioContext, ScenarioDefinition } from '../scenarios/scenario.ts';
import { MUTANTS, type MutantName } from './mutants.ts';

// Each deliberately broken sink must be flagged by the same checkers that pass the real sinks,
// in the category its breakage produces, with a replayable (shrunk) counterexample.
const SEED = 20261129;
let cluster: StartedLocalCluster;
let toxiproxy: Toxiproxy;
const reports = mkdtempSync(join(tmpdir(), 'mutants-'));

/** A first write opens the write session, so the breakage meets INSERTs, not the session start. */
const schedule = (build: (context: ScenarioContext) => ChaosCommand[]) => (context: ScenarioContext) =>
  fc.integer({ min: 1, max: 2 }).map((extra) => [new WriteEpochs(1), ...build(context), new WriteEpochs(extra)]);

function scenario(name: string, classes: readonly SinkClassName[], commands: ScenarioDefinition['commands'], specs?: ScenarioDefinition['specs']): ScenarioDefinition {
  return { name, description: name, classes, runs: { ci: 2, full: 2 }, commands, coverage: () => ({}), ...(specs ? { specs } : {}) };
}

/** Two shard names over the two replicas of ONE table: only the `:<shard>` suffix keeps their tokens apart. */
const twoNamesOneTable = (target: SpecTarget): fc.Arbitrary<RawSinkSpec> => {
  const [r1, r2] = target.endpoints.shards.get('s1') ?? [];
  return arbSinkSpec(target).map((spec) => ({
    ...spec,
    parameters: { ...spec.parameters, shard_hosts: { a: [r1], b: [r2] }, sharding_key_columns: undefined },
    // Batches large enough that both shard names get rows of one batch.
    dynamic_parameters: { ...spec.dynamic_parameters, max_rows_per_batch: 16, max_bytes_per_batch: 5_242_880 },
  }));
};

const orderedAtMostOnce = (target: SpecTarget): fc.Arbitrary<RawSinkSpec> =>
  arbSinkSpec(target).map((spec) => ({ ...spec, parameters: { ...spec.parameters, at_most_once_strategy: { enabled: false } } }));

const CASES: Record<MutantName, { sinkClass: SinkClassName; scenario: ScenarioDefinition }> = {
  'token-changes-on-replay': {
    sinkClass: 'ClickHouseBatchingSink',
    scenario: scenario('crash-after-insert', ['ClickHouseBatchingSink'], schedule(() => [new CrashSink('after-insert-before-state')])),
  },
  'shard-suffix-dropped': {
    sinkClass: 'ShardedClickHouseBatchingSink',
    scenario: scenario('two-shard-names-one-table', ['ShardedClickHouseBatchingSink'], schedule(() => []), twoNamesOneTable),
  },
  'topology-guard-disabled': { sinkClass: 'ClickHouseBatchingSink', scenario: topologyGuardScenario },
  'at-most-once-reinserts': {
    sinkClass: 'AtMostOnceClickHouseSink',
    scenario: scenario(
      'reset-on-insert',
      ['AtMostOnceClickHouseSink'],
      schedule((context) => [new FaultEpisode(resetPeer(context.specReplicas.map((r) => r.clientProxy)), 1, 800)]),
      orderedAtMostOnce,
    ),
  },
  'at-least-once-commits-first': {
    sinkClass: 'AtLeastOnceClickHouseSink',
    scenario: scenario('crash-after-commit', ['AtLeastOnceClickHouseSink'], schedule(() => [new CrashSink('after-state')])),
  },
};

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ topology: { shards: 2, replicas: 2, keepers: 1 } });
  toxiproxy = new Toxiproxy(cluster.description.toxiproxy ?? '');
});

afterAll(async () => {
  await cluster?.down();
  rmSync(reports, { recursive: true, force: true });
});

const run = (mutant: MutantName, path?: string) => {
  const { sinkClass, scenario: definition } = CASES[mutant];
  return runScenario({
    cluster,
    toxiproxy,
    scenario: definition,
    sinkClass,
    numRuns: definition.runs.ci,
    seed: SEED,
    path,
    dir: join(reports, path === undefined ? mutant : `${mutant}-replay`),
    timeLimitMs: 45_000,
    log: componentLogger('mutant-test', { mutant }),
    mutant,
    withoutServerDedup: true,
  });
};

const caughtPaths = new Map<MutantName, string>();

describe(`mutant sinks are caught (seed ${SEED})`, () => {
  for (const [mutant, { sinkClass, scenario: definition }] of Object.entries(CASES) as [MutantName, (typeof CASES)[MutantName]][]) {
    it(`${mutant} → ${MUTANTS[mutant].category}`, async () => {
      const outcome = await run(mutant);
      const result = scenarioResult(definition, sinkClass, outcome, SEED);
      expect(result.notes.filter((note) => note.startsWith('run ')), 'no harness failure').toEqual([]);
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
    const result = scenarioResult(CASES[mutant].scenario, CASES[mutant].sinkClass, outcome, SEED);
    expect(result.verdict).toBe('violation');
    expect(result.anomalies.map((anomaly) => anomaly.category)).toContain(MUTANTS[mutant].category);
  });
});
