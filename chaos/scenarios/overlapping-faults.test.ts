import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/index.ts';
import { declaredCoverage } from '../../properties/judge/index.ts';
import type { ScheduleStep } from '../../properties/schedule/index.ts';
import { faultFamily } from '../nemeses/families/registry.ts';
import { arbOverlappingSchedule, overlappingFaultsScenario } from './overlapping-faults.ts';

const context = (ownsCluster: boolean) => ({
  description: { shards: [], keepers: [] } as unknown as ClusterDescription,
  keepers: ['k1'],
  spec: { sink_class_name: 'ClickHouseBatchingSink' } as RawSinkSpec,
  ownsCluster,
});
type Pair = Extract<ScheduleStep, { kind: 'overlapping-faults' }>;
const pairsOf = (schedule: readonly ScheduleStep[]) =>
  schedule.filter((each): each is Pair => each.kind === 'overlapping-faults');
const sample = (ownsCluster = true) =>
  fc.sample(arbOverlappingSchedule(context(ownsCluster)), { numRuns: 60, seed: 28 }).map(pairsOf);
const families = (pair: Pair) => pair.faults.map((fault) => fault.family);
const isRefusal = (pair: Pair) => pair.faults.some((fault) => fault.heals === 'writes-ended');

describe('the overlapping-faults schedules', () => {
  it('hold both pairs in every schedule, each of two families, each fault of its own type', () => {
    for (const pairs of sample()) {
      expect(pairs).toHaveLength(2);
      expect(pairs.filter(isRefusal)).toHaveLength(1);
      for (const pair of pairs) {
        const [a, b] = pair.faults;
        expect(a.type).not.toBe(b.type);
        expect(faultFamily(a.family).id).not.toBe(faultFamily(b.family).id);
      }
    }
  });

  it('draw the order of the pairs, each pair its order, and the heal order where both heal at once', () => {
    const seen = (of: (pairs: Pair[]) => unknown) => new Set(sample().map(of));
    expect(seen((pairs) => isRefusal(pairs[0] as Pair))).toEqual(new Set([true, false]));
    const refused = (pairs: Pair[]) => pairs.find(isRefusal) as Pair;
    const slow = (pairs: Pair[]) => pairs.find((pair) => !isRefusal(pair)) as Pair;
    expect(seen((pairs) => families(refused(pairs))[0] === 'request_timeout')).toEqual(new Set([true, false]));
    expect(seen((pairs) => families(slow(pairs))[0] === 'keeper_link_latency')).toEqual(new Set([true, false]));
    expect(seen((pairs) => slow(pairs).faults[slow(pairs).healFirst].family)).toContain('keeper_link_latency');
    expect(seen((pairs) => slow(pairs).faults[slow(pairs).healFirst].family).size).toBeGreaterThan(1);
    // The request cut heals when its INSERT ended, always before the refusal that lasts until the writes end.
    for (const pairs of sample())
      expect(refused(pairs).faults[refused(pairs).healFirst].family).toBe('request_timeout');
  });

  it('never draw the node-wide failpoint on an attached cluster', () => {
    for (const pairs of sample(false)) expect(pairs.flatMap(families)).not.toContain('part_writer_failpoint');
  });

  it('owe all four faults, two at once on one INSERT, and a give-up wherever the class gives up', () => {
    const [schedule] = fc.sample(arbOverlappingSchedule(context(true)), { numRuns: 1, seed: 3 });
    const coverage = declaredCoverage(
      overlappingFaultsScenario.coverage('ClickHouseBatchingSink'),
      'ClickHouseBatchingSink',
      schedule as ScheduleStep[],
    );
    expect(coverage.faults).toHaveLength(4);
    expect(coverage).toMatchObject({ overlappingFaults: true, giveUp: true });
    expect(overlappingFaultsScenario.coverage('AtMostOnceClickHouseSink')).toMatchObject({ giveUp: false });
  });

  it('shrink a failing schedule to one pair, the request cut applied first', () => {
    const failure = fc.check(
      fc.property(arbOverlappingSchedule(context(true)), (schedule) => pairsOf(schedule).length === 0),
      { seed: 5 },
    );
    const [shrunk] = failure.counterexample as [ScheduleStep[]];
    const [pair] = pairsOf(shrunk);
    expect(pairsOf(shrunk)).toHaveLength(1);
    expect(pair?.faults[0].heals).toBe('insert-ended');
    expect(pair?.healFirst).toBe(0);
    expect(shrunk.filter((each) => each.kind !== 'overlapping-faults').map((each) => each.kind)).toEqual([
      'write',
      'restart-after-give-up',
      'write',
    ]);
  });
});
