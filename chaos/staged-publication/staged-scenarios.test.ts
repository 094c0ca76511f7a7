import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterDescription, ReplicaDescription } from '../../harness/cluster/index.ts';
import { needsReplication, startingReplicas } from './staged-faults.ts';
import { readStatement } from './staged-readers.ts';
import { arbStagedRunInput, STAGED_SCENARIOS, whyNotStagedRunnable } from './staged-scenarios.ts';

describe('the staged scenarios', () => {
  it('draw only their operations and table counts, and a replicated target wherever the fault needs a sibling or Keeper', () => {
    for (const scenario of STAGED_SCENARIOS)
      fc.assert(
        fc.property(arbStagedRunInput(scenario), (input) => {
          expect(scenario.operations).toContain(input.operation);
          expect(input.shape.tables).toBeGreaterThanOrEqual(scenario.tables[0]);
          expect(input.shape.tables).toBeLessThanOrEqual(scenario.tables[1]);
          if (needsReplication(input.fault)) expect(input.replicated).toBe(true);
        }),
        { numRuns: 50 },
      );
  });

  it('draw a storage policy apart with MOVE only (REPLACE and ATTACH FROM copy across policies), every other mismatch with any operation', () => {
    const refused = STAGED_SCENARIOS.find((scenario) => scenario.name === 'staged-refused');
    if (refused === undefined) throw new Error('no staged-refused scenario');
    const drawn = fc.sample(arbStagedRunInput(refused), 400);
    const operations = (mismatch: string) =>
      new Set(
        drawn
          .filter((input) => input.fault.kind === 'refused-publication' && input.fault.mismatch === mismatch)
          .map((input) => input.operation),
      );
    expect([...operations('storage-policy')]).toEqual(['move']);
    expect([...operations('projection')].sort()).toEqual(['attach', 'move', 'replace']);
  });

  it('meet every operation under a lost answer in every ci job, and a one-table and a multi-table load on purpose', () => {
    const ci = STAGED_SCENARIOS.filter((scenario) => scenario.profiles.includes('ci'));
    const cut = ci.filter(
      (scenario) => scenario.name.endsWith('-unknown') && scenario.name !== 'staged-staging-unknown',
    );
    expect(cut.flatMap((scenario) => scenario.operations).sort()).toEqual(['attach', 'move', 'replace']);
    expect(ci.some((scenario) => scenario.tables[1] === 1)).toBe(true);
    expect(ci.some((scenario) => scenario.tables[0] >= 2)).toBe(true);
  });
});

describe('readStatement', () => {
  it('reads every production table in one statement, counting rows and distinct ids per load', () => {
    expect(readStatement('db', ['events_a', 'events_b'])).toBe(
      "SELECT t AS table, load, count() AS rows, uniqExact(id) AS distinct FROM (SELECT 'events_a' AS t, load, id FROM db.events_a UNION ALL SELECT 'events_b' AS t, load, id FROM db.events_b) GROUP BY table, load",
    );
  });
});

describe('startingReplicas', () => {
  const replica = (name: string) => ({ name }) as ReplicaDescription;
  const cluster = (...shards: string[][]) =>
    ({
      shards: shards.map((names, index) => ({ name: `s${index + 1}`, replicas: names.map(replica) })),
    }) as unknown as ClusterDescription;
  const names = (picked: ReturnType<typeof startingReplicas>) => ({
    replicas: picked.replicas.map((one) => one.name),
    joiner: picked.joiner?.name,
  });

  it("keeps the shard's third replica out until it joins, else takes the next shard's first, else has none", () => {
    expect(names(startingReplicas(cluster(['a', 'b', 'c']), true))).toEqual({ replicas: ['a', 'b'], joiner: 'c' });
    expect(names(startingReplicas(cluster(['a', 'b'], ['c', 'd']), true))).toEqual({
      replicas: ['a', 'b'],
      joiner: 'c',
    });
    expect(names(startingReplicas(cluster(['a', 'b']), true))).toEqual({ replicas: ['a', 'b'], joiner: undefined });
    expect(names(startingReplicas(cluster(['a', 'b', 'c']), false))).toEqual({
      replicas: ['a', 'b', 'c'],
      joiner: undefined,
    });
  });
});

describe('whyNotStagedRunnable', () => {
  const cluster = (...shards: number[]) =>
    ({
      shards: shards.map((replicas, index) => ({
        name: `s${index + 1}`,
        replicas: Array.from({ length: replicas }, (_, replica) => ({ name: `s${index + 1}r${replica + 1}` })),
      })),
    }) as unknown as ClusterDescription;
  const named = (name: string) => {
    const found = STAGED_SCENARIOS.find((scenario) => scenario.name === name);
    if (found === undefined) throw new Error(`no ${name}`);
    return found;
  };

  it('names the node a fault needs and the cluster lacks, and lets every other shape run', () => {
    expect(whyNotStagedRunnable(named('staged-replica-kill'), cluster(1))).toMatch(/sibling.*1 replica/);
    expect(whyNotStagedRunnable(named('staged-replica-joins'), cluster(2))).toMatch(/1 shard\(s\), the first with 2/);
    expect(whyNotStagedRunnable(named('staged-replica-joins'), cluster(3))).toBeUndefined();
    expect(whyNotStagedRunnable(named('staged-replica-joins'), cluster(1, 1))).toBeUndefined();
    expect(whyNotStagedRunnable(named('staged-move-unknown'), cluster(1))).toBeUndefined();
  });
});
