import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TWO_BY_TWO } from '../scenarios/testing/two-by-two.ts';
import type { StartedCluster } from '../../harness/cluster/index.ts';
import { largeEpoch } from '../../properties/arbitraries/index.ts';
import { findScenarios } from '../scenarios/index.ts';
import { BUDGETS } from './run-budget.ts';
import { arbRunInput, MAX_BATCHES_PER_EPOCH } from './run-input.ts';

const description = TWO_BY_TWO;
const cluster = { description } as unknown as StartedCluster;

describe('arbRunInput: the volume of a run', () => {
  const [scenario] = findScenarios(['unknown-outcome']);
  if (scenario === undefined) throw new Error('no unknown-outcome');
  const inputs = fc.sample(
    arbRunInput({ cluster, scenario, sinkClass: 'ClickHouseBatchingSink', budget: BUDGETS.ci }),
    {
      seed: 5,
      numRuns: 300,
    },
  );

  it("writes large epochs at the profile's volume in most runs, small ones in some, and four partitions at once in some", () => {
    const large = inputs.filter((input) => input.workload.messagesPerEpoch >= largeEpoch(BUDGETS.ci.volume).min).length;
    expect(large).toBeGreaterThan(inputs.length / 2);
    expect(inputs.some((input) => input.workload.messagesPerEpoch <= 24)).toBe(true);
    expect(inputs.some((input) => input.workload.partitions === 4)).toBe(true);
  });

  it('cuts a large epoch into at most MAX_BATCHES_PER_EPOCH batches, while small epochs keep limits of one row', () => {
    for (const { workload, spec } of inputs) {
      const rows = spec.dynamic_parameters.max_rows_per_batch as number;
      expect(Math.ceil(workload.messagesPerEpoch / rows), JSON.stringify(spec.dynamic_parameters)).toBeLessThanOrEqual(
        MAX_BATCHES_PER_EPOCH,
      );
      expect(spec.dynamic_parameters.max_bytes_per_batch as number).toBeGreaterThanOrEqual(
        Math.ceil(workload.messagesPerEpoch / MAX_BATCHES_PER_EPOCH) * 1024,
      );
    }
    expect(
      inputs.some(
        ({ workload, spec }) => workload.messagesPerEpoch <= 24 && spec.dynamic_parameters.max_rows_per_batch === 1,
      ),
    ).toBe(true);
  });
});
