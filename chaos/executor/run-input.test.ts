import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TWO_BY_TWO } from '../scenarios/testing/two-by-two.ts';
import type { StartedCluster } from '../../harness/cluster/index.ts';
import { LARGE_EPOCH, largeEpoch, type RawSinkSpec } from '../../properties/arbitraries/index.ts';
import { findScenarios } from '../scenarios/index.ts';
import { SINK_CLASS_NAMES, type SinkClassName } from '../../sinks/index.ts';
import { BUDGETS, type RunBudget } from './run-budget.ts';
import { arbRunInput, MAX_BATCHES_PER_EPOCH, QUEUE_MODE_EPOCH_MOST, type RunInput } from './run-input.ts';

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

/** 300 at-most-once runs of `scenarioName` under `budget`. */
function atMostOnceRuns(scenarioName: string, budget: RunBudget, seed: number): RunInput[] {
  const [scenario] = findScenarios([scenarioName]);
  if (scenario === undefined) throw new Error(`no ${scenarioName}`);
  return fc.sample(arbRunInput({ cluster, scenario, sinkClass: 'AtMostOnceClickHouseSink', budget }), {
    seed,
    numRuns: 300,
  });
}

const queued = (spec: RawSinkSpec) =>
  (spec.parameters.at_most_once_strategy as { enabled?: boolean } | undefined)?.enabled === true;
/** Whether a run's sink may send each message as its own INSERT, from the start or after a restart. */
const mayQueue = ({ spec, schedule }: RunInput) =>
  queued(spec) || schedule.some((each) => 'spec' in each && queued(each.spec));

describe("arbRunInput: the at-most-once queue mode's volume", () => {
  const queueMode = atMostOnceRuns('unknown-outcome', BUDGETS.ci, 7).filter(mayQueue);

  it('a run that may send each message alone writes at most one large epoch across its partitions, at any partition count', () => {
    const most = largeEpoch(BUDGETS.ci.volume).max;
    expect(queueMode.length).toBeGreaterThan(30);
    for (const { workload } of queueMode)
      expect(workload.messagesPerEpoch).toBeLessThanOrEqual(Math.max(LARGE_EPOCH.min, most / workload.partitions));
    expect(
      queueMode.some(({ workload }) => workload.partitions === 1 && workload.messagesPerEpoch > LARGE_EPOCH.max),
    ).toBe(true);
    expect(queueMode.some(({ workload }) => workload.partitions === 4 && workload.messagesPerEpoch === most / 4)).toBe(
      true,
    );
  });
});

describe('arbRunInput: shrinking', () => {
  /** The first two cases fast-check tries for a property that always fails: the case, then its first shrink. */
  function firstStep(sinkClass: SinkClassName, seed: number): [RunInput, RunInput] {
    const [scenario] = findScenarios(['unknown-outcome']);
    if (scenario === undefined) throw new Error('no unknown-outcome');
    const tried: RunInput[] = [];
    fc.check(
      fc.property(arbRunInput({ cluster, scenario, sinkClass, budget: BUDGETS.ci }), (input) => {
        tried.push(input);
        return false;
      }),
      { seed, numRuns: 1 },
    );
    const [failed, step] = tried;
    if (failed === undefined || step === undefined) throw new Error('no shrink step');
    return [failed, step];
  }
  const messages = (input: RunInput) => input.workload.partitions * input.workload.messagesPerEpoch;

  it('tries fewer messages first, under the schedule it failed with, where each message is its own INSERT', () => {
    // At-most-once under unknown-outcome restarts into the other mode: every run may queue.
    for (const seed of [1, 2, 3, 4, 5]) {
      const [failed, step] = firstStep('AtMostOnceClickHouseSink', seed);
      if (messages(failed) <= 2) continue;
      expect(messages(step), `seed ${seed}`).toBeLessThan(messages(failed));
      expect(step.schedule, `seed ${seed}`).toEqual(failed.schedule);
    }
  });

  it('shrinks a batching run’s schedule first: its epochs cost a few batches at any size', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const [failed, step] = firstStep('ClickHouseBatchingSink', seed);
      expect(step.workload, `seed ${seed}`).toEqual(failed.workload);
    }
  });

  it("replays a shrunk counterexample from its seed and path: the replay line's promise", () => {
    const [scenario] = findScenarios(['unknown-outcome']);
    if (scenario === undefined) throw new Error('no unknown-outcome');
    const arbitrary = arbRunInput({ cluster, scenario, sinkClass: 'AtMostOnceClickHouseSink', budget: BUDGETS.ci });
    // Fails while the case writes more than a few messages an epoch in more than two steps: the
    // shrink walks the workload first, then the schedule.
    const fails = (input: RunInput) => input.workload.messagesPerEpoch < 3 || input.schedule.length < 3;
    for (const seed of [1, 2, 3]) {
      const details = fc.check(fc.property(arbitrary, fails), { seed });
      if (!details.failed || details.counterexamplePath === null) throw new Error(`seed ${seed}: no counterexample`);
      const replayed: RunInput[] = [];
      fc.check(
        fc.property(arbitrary, (input) => {
          replayed.push(input);
          return true;
        }),
        { seed, path: details.counterexamplePath, numRuns: 1 },
      );
      expect(replayed[0], `seed ${seed}`).toEqual(details.counterexample?.[0]);
    }
  });
});

describe("arbRunInput: the full profile's volume reaches the ordered mode, not the queue mode", () => {
  const inputs = atMostOnceRuns('network-degradation', BUDGETS.full, 11);
  const acrossPartitions = ({ workload }: RunInput) => workload.messagesPerEpoch * workload.partitions;

  it('an ordered run writes epochs past what a queue-mode run may; a queue-mode run stays at its cap', () => {
    expect(QUEUE_MODE_EPOCH_MOST).toBeLessThan(largeEpoch(BUDGETS.full.volume).max);
    const ordered = inputs.filter((input) => !mayQueue(input));
    const queue = inputs.filter(mayQueue);
    expect(ordered.some((input) => input.workload.messagesPerEpoch > QUEUE_MODE_EPOCH_MOST)).toBe(true);
    for (const input of queue)
      expect(acrossPartitions(input)).toBeLessThanOrEqual(
        Math.max(QUEUE_MODE_EPOCH_MOST, LARGE_EPOCH.min * input.workload.partitions),
      );
  });
});

/** The epochs a schedule writes, each step's and each nested step's (a spec's fields are not steps). */
function epochsOf(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((total: number, each) => total + epochsOf(each), 0);
  if (value === null || typeof value !== 'object') return 0;
  const own = 'epochs' in value && typeof value.epochs === 'number' ? value.epochs : 0;
  return Object.entries(value).reduce((total, [key, each]) => total + (key === 'spec' ? 0 : epochsOf(each)), own);
}

describe("a ci job's volume per class, modelled from the first run of every pair over 60 seeds", () => {
  // Messages of a run: the epochs its schedule writes x its partitions x messages per epoch.
  // A pair's further runs, made until its coverage happened, only add to it.
  const perClass = SINK_CLASS_NAMES.map((sinkClass) => {
    const pairs = findScenarios(undefined, 'ci').filter((scenario) => scenario.classes.includes(sinkClass));
    const totals = Array.from({ length: 60 }, (_, seed) =>
      pairs.reduce((total, scenario, index) => {
        const [input] = fc.sample(arbRunInput({ cluster, scenario, sinkClass, budget: BUDGETS.ci }), {
          seed: seed * 1_000 + index,
          numRuns: 1,
        });
        if (input === undefined) throw new Error(`no input for ${scenario.name}`);
        return total + epochsOf(input.schedule) * input.workload.partitions * input.workload.messagesPerEpoch;
      }, 0),
    );
    return { sinkClass, totals };
  });

  it.each(perClass)('$sinkClass writes at least 5,000 messages on nine seeds in ten', ({ totals }) => {
    expect(totals.filter((total) => total >= 5_000).length).toBeGreaterThanOrEqual(54);
  });
});
