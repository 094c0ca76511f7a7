import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedOf } from '../../harness/base/index.ts';
import { startCluster, type StartedCluster } from '../../harness/cluster/index.ts';
import { anomalyKind } from '../../properties/checkers/index.ts';
import type { StagedPartitionLoader } from '../../sinks/index.ts';
import { startedClusterJournal, UndoJournal } from '../nemeses/index.ts';
import { runStagedScenario, STAGED_SCENARIOS } from '../staged-publication/index.ts';
import { createMutatedTree } from './mutated-tree.ts';
import { STAGED_MUTANTS, type StagedMutantName } from './staged-mutants.ts';

// A random seed, printed: a red run replays with CHAOS_SEED.
const seed = seedOf(Number(process.env['CHAOS_SEED'] ?? Math.floor(Math.random() * 2 ** 31)), 'CHAOS_SEED');
const log = pino({ level: 'silent' });
let cluster: StartedCluster;
let journal: UndoJournal;
const dir = mkdtempSync(join(tmpdir(), 'staged-mutants-'));

beforeAll(async () => {
  process.stderr.write(`staged loader self-test: seed ${seed}\n`);
  cluster = await startCluster('embedded', { topology: { shards: 1, replicas: 2, keepers: 1 }, logger: log });
  journal = new UndoJournal(startedClusterJournal(cluster), cluster);
}, 120_000);

afterAll(async () => {
  journal?.close();
  await cluster?.down();
  rmSync(dir, { recursive: true, force: true });
});

const run = (scenarioName: string, name: string, loader?: typeof StagedPartitionLoader) => {
  const scenario = STAGED_SCENARIOS.find((entry) => entry.name === scenarioName);
  if (scenario === undefined) throw new Error(`no scenario ${scenarioName}`);
  return runStagedScenario({
    cluster,
    journal,
    scenario,
    profile: 'ci',
    seed,
    dir: join(dir, name),
    databasePrefix: 'staged_mutants',
    serverDedup: 'alternate',
    log,
    loader,
    shrink: false,
  });
};

describe('the staged loader against bugs a person ships, on the real cluster', () => {
  it.each(Object.keys(STAGED_MUTANTS) as StagedMutantName[])(
    '%s is caught in its category by its scenario, and the real loader passes it',
    async (name) => {
      const mutant = STAGED_MUTANTS[name];
      const tree = createMutatedTree(name, mutant, dir);
      const mutated = (await import(join(tree, 'sinks/staged/staged-partition-loader.ts'))) as {
        StagedPartitionLoader: typeof StagedPartitionLoader;
      };
      const caught = await run(mutant.scenario, name, mutated.StagedPartitionLoader);
      expect(caught.verdict, caught.notes.join('\n')).toBe('violation');
      expect(caught.anomalies.map((found) => anomalyKind(found.category))).toEqual([mutant.category]);
      const control = await run(mutant.scenario, `${name}-control`);
      expect(control.verdict, control.notes.join('\n')).toBe('pass');
    },
    240_000,
  );
});
