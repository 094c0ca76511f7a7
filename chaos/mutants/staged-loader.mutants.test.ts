import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedOf } from '../../harness/base/index.ts';
import { startCluster, type StartedCluster } from '../../harness/cluster/index.ts';
import { startedClusterJournal, UndoJournal } from '../nemeses/index.ts';
import { STAGED_MUTANTS, type StagedMutantName } from './staged-mutants.ts';
import { stagedRow } from './staged-rows.ts';

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

const options = { seeds: [seed], serverDedup: 'alternate' as const, shrink: false };

describe('the staged loader against bugs a person ships, on the real cluster', () => {
  it.each(Object.keys(STAGED_MUTANTS) as StagedMutantName[])(
    '%s is caught in its category by its scenario, and the real loader passes it',
    async (name) => {
      const caught = await stagedRow({ name }, options, cluster, journal, dir, log);
      const mutant = caught.detections[0];
      expect(mutant?.caughtInCategory, `${mutant?.verdict}: ${mutant?.categories.join(', ')}`).toBe(true);
      const control = await stagedRow({ name: 'control', controlOf: name }, options, cluster, journal, dir, log);
      expect(control.detections[0]?.verdict, control.detections[0]?.replayCommand).toBe('pass');
    },
    240_000,
  );
});
