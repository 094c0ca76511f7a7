import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { eventsOfType, type Stamped } from '../../harness/flow/history/index.ts';
import { DeterministicSource, expectedStoredRow, type SourceConfig } from '../../harness/flow/index.ts';
import { type GroundTruth, rowForm } from '../../harness/oracle/index.ts';
import { isMessageId, parseMessageId, type SinkClassName } from '../../sinks/index.ts';
import {
  checkScenario,
  clientLinksOf,
  type Coverage,
  type Evidence,
  type ExpectedRefusal,
  faultEvidence,
  type InsertBudget,
  observe,
  type RefusalRecord,
  type ScenarioCheck,
  sightingsOf,
  withLogsBeforeKills,
} from '../checkers/index.ts';
import { OWED_BY_CLASS } from '../base/index.ts';
import type { Schedule } from '../schedule/index.ts';
import { boundaryWrites } from './boundary-evidence.ts';
import { declaredCoverage, type ScenarioCoverage } from './declared-coverage.ts';
import { expectedShardsOf } from './expected-shard.ts';
import { judgedWarning, owedGuarantee, owedOnView, type TargetTable } from './owed.ts';
import { specInForceAt, specPeriods, type SpecPeriod } from './spec-periods.ts';
import { startExpectations, type StartExpectation } from './start-expectations.ts';

export const ROUTING_REFUSAL_PREFIX = 'Refusing to start the ClickHouse sink: the shard topology changed while';
const REFUSAL_PREFIX = 'Refusing to start the ClickHouse sink: ';

/** A run judged: the checkers' results, and the coverage and evidence it adds to its scenario's ledger. */
export interface RunJudgement extends ScenarioCheck {
  readonly coverage: Coverage;
  readonly evidence: Evidence;
  readonly inserts: { readonly ok: number; readonly failed: number; readonly unknown: number };
}

/**
 * A run as it is stored (`check-input.json` beside `history.jsonl`), which is all a judgement
 * reads: the cluster, the class, the source, the history, what the replicas held and logged, the
 * scenario's declared coverage, the schedule and its table. Which specs were in force and which starts had to
 * refuse are derived from the history, and the coverage owed from the scenario's declaration and
 * the schedule, so a fix to any of those rules re-applies to a stored run.
 */
export interface StoredRun {
  readonly description: ClusterDescription;
  readonly sinkClass: SinkClassName;
  readonly source: SourceConfig;
  readonly events: readonly Stamped[];
  readonly truth: GroundTruth;
  /** The "sometimes" events the run's scenario declared for its class. */
  readonly scenarioCoverage: ScenarioCoverage;
  /** The schedule the run executed, as data: its faults, crash points and refused changes are owed too. */
  readonly schedule: Schedule;
  /** The run's target had ClickHouse's block dedup off (or short). */
  readonly serverDedupOff: boolean;
  readonly target: TargetTable;
}

/**
 * The refusals the guard model expects, with the details the message must carry: the persisted
 * routing fingerprint (from the partition's last start) and the oldest undelivered batch bound
 * (from the store snapshot of the refusing start).
 */
function expectedRefusals(events: readonly Stamped[], expectations: readonly StartExpectation[]): ExpectedRefusal[] {
  const started = eventsOfType(events, 'partition-started');
  const snapshots = eventsOfType(events, 'state-snapshot');
  return expectations
    .filter((expectation) => expectation.refuse)
    .map((expectation) => {
      const details: string[] = [];
      const previous = started
        .filter((event) => event.partition === expectation.partition && event.at < expectation.from)
        .pop();
      if (expectation.routingChanged && previous?.fingerprints)
        details.push(`    persisted_topology_fingerprint = ${previous.fingerprints.routing}`);
      const snapshot = snapshots.find(
        (event) =>
          event.partition === expectation.partition && event.at >= expectation.from && event.at <= expectation.until,
      );
      const oldest = snapshot?.undelivered[0]?.token;
      if (oldest !== undefined) details.push(`    oldest_undelivered_batch_bound = ${oldest}`);
      const messagePrefix = expectation.routingChanged
        ? `${ROUTING_REFUSAL_PREFIX} ${snapshot?.undelivered.length ?? expectation.undelivered} batch(es) are still undelivered`
        : REFUSAL_PREFIX;
      return {
        partition: expectation.partition,
        messagePrefix,
        details,
        from: expectation.from,
        until: expectation.until,
      };
    });
}

/** Topology change label -> refusals observed inside a start that had to refuse under it. */
function refusedChanges(
  expectations: readonly StartExpectation[],
  refusals: readonly RefusalRecord[],
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const expectation of expectations.filter((e) => e.refuse)) {
    const seen = refusals.some(
      (refusal) =>
        refusal.partition === expectation.partition &&
        refusal.at >= expectation.from &&
        refusal.at <= expectation.until,
    );
    if (seen) counts.set(expectation.label, (counts.get(expectation.label) ?? 0) + 1);
  }
  return counts;
}

/** The form of the row the run's source produced under a message id (the source is deterministic). */
function producedForms(config: SourceConfig): (messageId: string) => string | undefined {
  const sources = new Map<number, DeterministicSource>();
  return (messageId) => {
    if (!isMessageId(messageId)) return undefined;
    const { generation, partition, seq } = parseMessageId(messageId);
    if (generation !== config.generation || partition >= config.partitions) return undefined;
    const source = sources.get(partition) ?? new DeterministicSource(config, partition);
    sources.set(partition, source);
    return rowForm(expectedStoredRow(config, source.message(seq).row));
  };
}

/** The seed's default when a spec leaves `max_insert_attempts` out. */
const SEED_MAX_INSERT_ATTEMPTS = 10;

/** The fewest and the most `max_insert_attempts` of the specs in force at any moment of [from, to]. */
function insertBudgetDuring(specs: readonly SpecPeriod[], from: number, to: number): InsertBudget {
  const periods = specs.filter(
    (period, index) => period.from <= to && (specs[index + 1]?.from ?? Number.POSITIVE_INFINITY) > from,
  );
  const budgets = (periods.length > 0 ? periods : specs.slice(0, 1)).map((period) => {
    const value = period.spec.dynamic_parameters?.max_insert_attempts;
    return typeof value === 'number' ? value : SEED_MAX_INSERT_ATTEMPTS;
  });
  return budgets.length > 0
    ? { fewest: Math.min(...budgets), most: Math.max(...budgets) }
    : { fewest: SEED_MAX_INSERT_ATTEMPTS, most: SEED_MAX_INSERT_ATTEMPTS };
}

/** The spec in force at a moment (the first one before any) runs at-most-once's ordered mode, the seed's default. */
function orderedModeAt(specs: readonly SpecPeriod[], at: number): boolean {
  const strategy = specInForceAt(specs, at)?.parameters?.at_most_once_strategy as { enabled?: unknown } | undefined;
  return strategy?.enabled !== true;
}

/** Whether the spec in force at a moment (the first one before any) asks for `async_insert` (the seed's default: off). */
function asyncInsertAt(specs: readonly SpecPeriod[], at: number): boolean {
  return specInForceAt(specs, at)?.dynamic_parameters?.async_insert === true;
}

/** The `async_insert` values an INSERT begun at a moment may carry: two while a reconfiguration was being taken. */
function asyncInsertsAllowedAt(started: readonly SpecPeriod[], applied: readonly SpecPeriod[], at: number): boolean[] {
  return [...new Set([asyncInsertAt(started, at), asyncInsertAt(applied, at)])];
}

/** Why a check could not verify its run (its logs cannot vouch for it), or undefined when it could. */
export function unverified(check: ScenarioCheck): string | undefined {
  if (check.verdict !== 'infra-error') return undefined;
  return check.results
    .filter((result) => result.verdict === 'infra-error')
    .flatMap((result) => result.notes ?? [`the ${result.checker} check could not verify the run`])
    .join('; ');
}

/** The one judgement of a stored run, for the live job and `npm run check` alike. */
export function judge(input: StoredRun): RunJudgement {
  const owed = OWED_BY_CLASS[input.sinkClass];
  const events = input.events;
  const description = input.description;
  const truth: GroundTruth = { ...input.truth, serverInserts: withLogsBeforeKills(input.truth.serverInserts, events) };
  const replicaOfEndpoint = new Map(
    description.shards.flatMap((shard) =>
      shard.replicas.map((replica) => [new URL(replica.http).host, replica.name] as const),
    ),
  );
  const target = input.target;
  const specs = specPeriods(events);
  const appliedSpecs = specPeriods(events, 'applied');
  const expectations = startExpectations(events, description);
  const { observations, facts, unknown } = observe({
    guarantee: owedGuarantee(owed.guarantee, target, input.serverDedupOff),
    viewGuarantee: owedOnView(owed.guarantee, target, input.serverDedupOff),
    judgedWarning: judgedWarning(target, input.serverDedupOff),
    sendsToken: owed.sendsToken,
    generation: input.source.generation,
    events,
    truth: truth,
    replicaOf: (endpoint) => replicaOfEndpoint.get(endpoint),
    expectedShards: (attempts) => expectedShardsOf(description, specs, attempts, truth),
    expectedRefusals: expectedRefusals(events, expectations),
    producedForm: producedForms(input.source),
    insertBudgetDuring: (from, to) => insertBudgetDuring(specs, from, to),
    orderedModeAt: (at) => orderedModeAt(specs, at),
    asyncInsertsAllowedAt: (at) => asyncInsertsAllowedAt(specs, appliedSpecs, at),
  });
  const faults = faultEvidence(events, facts.attempts, {
    exceptionCodes: new Map(
      truth.serverInserts.flatMap((insert) =>
        insert.exceptionCode === undefined ? [] : [[insert.queryId, insert.exceptionCode] as const],
      ),
    ),
    unknown,
    clientLinks: clientLinksOf(description),
    keeperWaits: new Map(
      truth.serverInserts.flatMap((insert) =>
        insert.keeperWaitMs === undefined ? [] : [[insert.queryId, insert.keeperWaitMs] as const],
      ),
    ),
    keeperLinkWaits: new Map(
      truth.serverInserts.flatMap((insert) =>
        insert.keeperWaitsByLink === undefined ? [] : [[insert.queryId, insert.keeperWaitsByLink] as const],
      ),
    ),
  });
  const evidence: Evidence = {
    faultsFired: faults.fired,
    faultsMissed: faults.missed,
    refusedChanges: refusedChanges(expectations, facts.refusals),
    crashes: facts.crashes,
    boundaries: boundaryWrites(events, specs),
    sightings: sightingsOf({
      facts,
      observations,
      unknown,
      truth: truth,
      serverDedupOff: input.serverDedupOff,
      faultMet: faults.metAttempts,
    }),
    unknownOutcomes: facts.unknownOutcomes,
    acceptedTwice: observations.acceptedTwice.size,
  };
  const coverage = declaredCoverage(input.scenarioCoverage, input.sinkClass, input.schedule);
  const check = checkScenario(observations, coverage, evidence);
  const count = (outcome: string) => facts.attempts.filter((attempt) => attempt.outcome === outcome).length;
  return {
    ...check,
    coverage,
    evidence,
    inserts: { ok: count('ok'), failed: count('failed'), unknown: count('unknown') },
  };
}
