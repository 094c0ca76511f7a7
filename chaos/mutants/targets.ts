import fc from 'fast-check';
import { arbSinkSpec, type RawSinkSpec, type SpecTarget } from '../../properties/arbitraries/index.ts';
import { step } from '../../properties/schedule/index.ts';
import type { SinkClassName } from '../../sinks/index.ts';
import { type ClusterShape, findScenarios, parseShape, type ScenarioDefinition } from '../scenarios/index.ts';
import type { MutantName } from './catalogue.ts';

/** Two shard names over the two replicas of ONE table: only the `:<shard>` suffix keeps their tokens apart. */
const twoNamesOneTable = (target: SpecTarget): fc.Arbitrary<RawSinkSpec> => {
  const [r1, r2] = target.endpoints.shards.get('s1') ?? [];
  return arbSinkSpec(target).map((spec) => ({
    ...spec,
    parameters: { ...spec.parameters, shard_hosts: { a: [r1], b: [r2] }, sharding_key_columns: undefined },
    // Batches of four rows: both shard names mostly get rows of one batch, and epochs cut into several.
    dynamic_parameters: { ...spec.dynamic_parameters, max_rows_per_batch: 4, max_bytes_per_batch: 5_242_880 },
  }));
};

/**
 * The one layout the catalogue never writes (its shard names are distinct tables): plain writes
 * are enough, since the two names share one table and one dedup log.
 */
const twoShardNamesOneTable: ScenarioDefinition = {
  name: 'two-shard-names-one-table',
  description: 'two shard names over the replicas of one table, plain writes',
  classes: ['ShardedClickHouseBatchingSink'],
  specs: twoNamesOneTable,
  commands: () => fc.integer({ min: 1, max: 2 }).map((epochs) => [step.write(1), step.write(epochs)]),
  coverage: () => ({}),
};

const catalogue = (name: string): ScenarioDefinition => {
  const [found] = findScenarios([name]);
  if (found === undefined) throw new Error(`no scenario ${name}`);
  return found;
};

/**
 * A catalogue scenario whose sharded specs always route by a 64-bit integer column beside the
 * String key (one of the catalogue's own keyed draws, `KEY_COLUMN_SETS`, held for every run):
 * the mutant's target where the catalogue meets it in one keyed draw in six.
 */
const keyedByInt64 = (name: string): ScenarioDefinition => {
  const scenario = catalogue(name);
  return {
    ...scenario,
    name: `${name}-keyed-by-int64`,
    specs: (target) =>
      arbSinkSpec(target, { forms: ['shard_hosts'] }).map((spec) => ({
        ...spec,
        parameters: { ...spec.parameters, sharding_key_columns: ['t_int64'] },
      })),
  };
};

/** A catalogue scenario whose every run writes into a table that declares its columns in a drawn order, never the stream's. */
const shuffledTable = (name: string): ScenarioDefinition => ({
  ...catalogue(name),
  name: `${name}-shuffled-table`,
  workload: { shuffledTable: true },
});

/** A catalogue scenario whose every run writes from four partitions at once. */
const fourPartitions = (name: string): ScenarioDefinition => ({
  ...catalogue(name),
  name: `${name}-four-partitions`,
  partitions: 4,
});

/**
 * A catalogue scenario whose sharded specs always take the `shard_hosts` form, so every run
 * routes: the target of a routing mutant held on a cluster shape the default one is not.
 */
const alwaysRouted = (name: string): ScenarioDefinition => {
  const scenario = catalogue(name);
  return {
    ...scenario,
    name: `${name}-routed`,
    specs: (target) => arbSinkSpec(target, { forms: ['shard_hosts'] }),
  };
};

/** A cluster like the default one but for its shard names, which differ in length (a job's drawn shapes mostly do). */
const UNEQUAL_SHARD_NAMES = parseShape('2x2:a,north-eu', 'embedded');

/** Where a shipped mutant is run: a class, a scenario, and the cluster shape when the default one cannot show it. */
export interface MutantTarget {
  readonly sinkClass: SinkClassName;
  readonly scenario: ScenarioDefinition;
  readonly shape?: ClusterShape;
}

/** Which class and scenario each shipped mutant is run against: the catalogue's own wherever it can catch it. */
export const MUTANT_TARGETS: Readonly<Record<MutantName, MutantTarget>> = {
  'token-changes-on-replay': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('sink-crash') },
  'shard-suffix-dropped': { sinkClass: 'ShardedClickHouseBatchingSink', scenario: twoShardNamesOneTable },
  'topology-guard-disabled': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('topology-guard') },
  'at-most-once-reinserts': { sinkClass: 'AtMostOnceClickHouseSink', scenario: catalogue('unknown-outcome') },
  'at-least-once-commits-first': { sinkClass: 'AtLeastOnceClickHouseSink', scenario: catalogue('sink-crash') },
  'unknown-outcome-as-ok': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('unknown-outcome') },
  'reset-means-not-started': { sinkClass: 'AtMostOnceClickHouseSink', scenario: catalogue('unknown-outcome') },
  // The topology scenario writes under keyed and unkeyed layouts in every run.
  'sharding-key-ignored': { sinkClass: 'ShardedClickHouseBatchingSink', scenario: catalogue('topology-guard') },
  // async_insert is drawn per spec; every server-errors run writes under it off (a spec boundary), where the token goes missing.
  'token-only-with-async-insert': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('server-errors') },
  // Every server-errors run writes under async_insert on and off (a spec boundary).
  'async-insert-not-deduplicated': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('server-errors') },
  'epoch-bound-as-batch-token': { sinkClass: 'ShardedClickHouseBatchingSink', scenario: catalogue('unknown-outcome') },
  'routing-fingerprint-with-hosts': {
    sinkClass: 'ShardedClickHouseBatchingSink',
    scenario: catalogue('topology-guard'),
  },
  // Untyped small messages, some with multi-byte characters: garbled rows land. With the typed
  // columns' wide text in every batch every body is refused instead, and nothing lands to judge.
  'utf16-length-as-byte-length': { sinkClass: 'AtMostOnceClickHouseSink', scenario: catalogue('at-most-once-queue') },
  'bigint-key-as-text': { sinkClass: 'ShardedClickHouseBatchingSink', scenario: keyedByInt64('unknown-outcome') },
  // Equal-length names (s1, s2) hide it: the cluster's names differ in length, as a job's drawn shape's mostly do.
  'score-over-longest-name-buffer': {
    sinkClass: 'ShardedClickHouseBatchingSink',
    scenario: alwaysRouted('network-degradation'),
    shape: UNEQUAL_SHARD_NAMES,
  },
  'datetime-rounded-not-floored': {
    sinkClass: 'ShardedClickHouseBatchingSink',
    scenario: catalogue('network-degradation'),
  },
  // One run in four of the catalogue's keeps the stream's order, where positions and names agree.
  'row-values-by-position': { sinkClass: 'AtLeastOnceClickHouseSink', scenario: shuffledTable('unknown-outcome') },
  'server-errors-permanent': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('server-errors') },
  'poison-only-on-permanent': { sinkClass: 'AtLeastOnceClickHouseSink', scenario: catalogue('server-errors') },
  'give-up-swallowed': { sinkClass: 'ShardedClickHouseBatchingSink', scenario: catalogue('server-errors') },
  // Every run ends with the partition given up (the mutant refuses its own later batches), after batch 2 was skipped.
  'lost-then-gave-up': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('server-errors') },
  'retries-one-past-budget': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('server-errors') },
  // Every run restarts the sink with max_insert_attempts = 1 before a server error (its boundaries).
  'single-attempt-read-as-unset': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('server-errors') },
  // Every run cuts a first attempt's request while every replica refuses its retries: one pair in every schedule.
  'transient-failures-not-counted': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('overlapping-faults') },
  // Every run crashes the ordered mode at before-insert (every crash point, both strategy modes).
  // Four partitions writing at once in every run (the catalogue draws four in one run of four).
  'delivered-mark-without-partition': {
    sinkClass: 'ClickHouseBatchingSink',
    scenario: fourPartitions('unknown-outcome'),
  },
  'output-taken-before-crash-point': { sinkClass: 'AtMostOnceClickHouseSink', scenario: catalogue('sink-crash') },
  // The crash schedule runs at-most-once in both strategy modes, so every run crashes an ordered-mode sink after a commit.
  'output-messages-not-kept': { sinkClass: 'AtMostOnceClickHouseSink', scenario: catalogue('sink-crash') },
  // ClickHouseBatchingSink has no shard_hosts form: every run is one slot.
  'plain-merge-tree-unwarned': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('plain-merge-tree') },
  // Every chain starts with an answer cut after the commit, then one or two more unknown outcomes on the retries.
  'fresh-token-after-two-unknowns': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('retry-under-fault') },
  // Every run cuts at least two INSERTs' outcomes, and each is retried after retry_backoff once healed.
  'retry-backoff-read-as-seconds': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('unknown-outcome') },
  'dedup-window-checked-on-reconfigure-only': {
    sinkClass: 'ShardedClickHouseBatchingSink',
    scenario: catalogue('dedup-window'),
  },
  // Every run holds a commit-lost episode: the server answers 319 with the part never in Keeper.
  'unknown-status-written-locally': { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue('server-windows') },
};
