import { eventsOfType, type Stamped } from '../../harness/flow/history/index.ts';
import type { GroundTruth } from '../../harness/oracle/index.ts';
import type { DeliveryGuarantee, SinkWarningKind } from '../../sinks/index.ts';
import { factsFromHistory, giveUpsFromHistory, type HistoryFacts } from './from-history.ts';
import type { ExpectedRefusal, InsertBudget, Observations } from './observations.ts';
import { recoveriesOf } from './recoveries.ts';
import {
  acceptedTwice,
  lostToKills,
  resolveUnknownOutcomes,
  unloggedAttempts,
  type UnknownResolution,
} from './server-log.ts';

export interface ObserveInput {
  /** What the class owes on the run's table (exactly-once degrades on a table without block dedup). */
  readonly guarantee: DeliveryGuarantee;
  /** A warning the run's table makes the sink owe (`expected`) or forbids; undefined when none is judged. */
  readonly judgedWarning?: { readonly kind: SinkWarningKind; readonly expected: boolean } | undefined;
  /** The class owes every INSERT a dedup token (the exactly-once classes). */
  readonly sendsToken: boolean;
  /** The sources' generation (message ids `<generation>-<partition>-<seq>`). */
  readonly generation: number;
  readonly events: readonly Stamped[];
  readonly truth: Pick<
    GroundTruth,
    'replicas' | 'viaDistributed' | 'serverInserts' | 'forms' | 'view' | 'logMarkerFound'
  >;
  /** The form (`rowForm`) of the row the source produced under a message id, undefined for an id it never produced. */
  readonly producedForm: (messageId: string) => string | undefined;
  /** Replica name behind an attempt's `host:port` (a killed replica's log is gone). */
  readonly replicaOf: (endpoint: string) => string | undefined;
  /** Where each message must live, given the run's attempts (the executor knows the specs in force). */
  readonly expectedShards: (attempts: Observations['attempts']) => (messageId: string) => readonly string[] | null;
  readonly expectedRefusals: readonly ExpectedRefusal[];
  /** The `max_insert_attempts` values of the specs in force between two moments. */
  readonly insertBudgetDuring: (from: number, to: number) => InsertBudget;
  /** At-most-once: the spec in force at a moment runs the ordered strategy mode (pending messages kept). */
  readonly orderedModeAt: (at: number) => boolean;
  /** The `async_insert` values of the specs that may be in force at a moment (two while a reconfiguration is taken). */
  readonly asyncInsertsAllowedAt: (at: number) => readonly boolean[];
  /** What the class owes on the view behind the target, when there is one (its rows are `truth.view`). */
  readonly viewGuarantee?: DeliveryGuarantee | undefined;
}

export interface Observed {
  readonly observations: Observations;
  readonly facts: HistoryFacts;
  readonly unknown: UnknownResolution;
}

/**
 * The one translation from what a run stored (its history, and what the replicas held and
 * logged) into what the checkers read: acknowledged and produced ids, attempts, the unknown
 * outcomes settled against the servers' logs, messages the server accepted twice (for classes
 * without a token), the tokens the server received.
 */
export function observe(input: ObserveInput): Observed {
  const facts = factsFromHistory(input.events, input.guarantee, input.generation);
  const lostLog = lostToKills(input.events, input.replicaOf);
  const vouchedFor = new Set(input.truth.logMarkerFound ?? []);
  const vouched = (endpoint: string) => vouchedFor.has(input.replicaOf(endpoint) ?? '');
  const unknown = resolveUnknownOutcomes(facts.attempts, input.truth.serverInserts, { lostLog, vouched });
  const observations: Observations = {
    guarantee: input.guarantee,
    attempts: facts.attempts,
    acknowledged: facts.acknowledged,
    produced: facts.produced,
    altered: alteredMessages(input.truth.forms, facts.produced, input.producedForm),
    replicas: input.truth.replicas,
    viaDistributed: input.truth.viaDistributed,
    acceptedTwice: input.sendsToken ? new Set() : acceptedTwice(facts.attempts, input.truth.serverInserts),
    expectedShards: input.expectedShards(facts.attempts),
    refusals: facts.refusals,
    expectedRefusals: input.expectedRefusals,
    sendsToken: input.sendsToken,
    serverTokens: new Map(input.truth.serverInserts.map((insert) => [insert.queryId, insert.token])),
    serverAsyncSettings: new Map(
      input.truth.serverInserts.flatMap((insert) =>
        insert.asyncSettings === undefined ? [] : [[insert.queryId, insert.asyncSettings] as const],
      ),
    ),
    asyncInsertAllowed: new Map(
      facts.attempts.map((attempt) => [attempt.queryId, input.asyncInsertsAllowedAt(attempt.invokedAt)]),
    ),
    serverFinished: new Map(input.truth.serverInserts.map((insert) => [insert.queryId, insert.finished])),
    unloggedAttempts: unloggedAttempts(facts.attempts, input.truth.serverInserts, input.replicaOf, lostLog),
    deliveredIds: facts.deliveredIds,
    reconfigureFailures: eventsOfType(input.events, 'reconfigure-failed').map((event) => ({
      partition: event.partition,
      message: event.error.message.split('\n')[0] ?? '',
    })),
    epochFailures: eventsOfType(input.events, 'epoch-failed').map((event) => ({
      partition: event.partition,
      message: event.error.message.split('\n')[0] ?? '',
    })),
    judgedWarning:
      input.judgedWarning === undefined
        ? undefined
        : {
            ...input.judgedWarning,
            given: eventsOfType(input.events, 'sink-warning').some((event) => event.kind === input.judgedWarning?.kind),
          },
    pendingDropped: input.guarantee === 'at-most-once' ? pendingDropped(input.events, facts, input.orderedModeAt) : [],
    ...giveUpsFromHistory(input.events, facts.attempts, input.generation, input.insertBudgetDuring),
    recoveries: recoveriesOf(input.events),
    ...scheduleCutOf(input.events),
    ...(input.truth.view === undefined || input.viewGuarantee === undefined
      ? {}
      : { view: { replicas: input.truth.view, guarantee: input.viewGuarantee } }),
  };
  return { observations, facts, unknown };
}

/**
 * Ordered mode keeps a committed epoch's messages until an INSERT carries them: one no INSERT
 * carried and never delivered was dropped. Carried means the attempt got past its `before-insert`
 * point; one its worker died at, with nothing sent and no outcome, carried nothing.
 */
function pendingDropped(
  events: readonly Stamped[],
  facts: HistoryFacts,
  orderedModeAt: (at: number) => boolean,
): string[] {
  const diedBeforeInsert = eventsOfType(events, 'crash').filter((crash) => crash.point === 'before-insert');
  const neverStarted = (attempt: HistoryFacts['attempts'][number]) =>
    !attempt.sent &&
    attempt.endedAt === Number.POSITIVE_INFINITY &&
    diedBeforeInsert.some(
      (crash) =>
        crash.writer === attempt.writer &&
        crash.partition === attempt.partition &&
        crash.batch === attempt.batch &&
        crash.at >= attempt.invokedAt,
    );
  const carried = new Set(
    facts.attempts.filter((attempt) => !neverStarted(attempt)).flatMap((attempt) => attempt.messageIds),
  );
  return eventsOfType(events, 'epoch-commit')
    .filter((commit) => orderedModeAt(commit.at))
    .flatMap((commit) => commit.messageIds)
    .filter((id) => !carried.has(id) && !facts.acknowledged.has(id));
}

/** Produced messages some replica holds in a form other than the source's. */
function alteredMessages(
  forms: GroundTruth['forms'],
  produced: ReadonlySet<string>,
  producedForm: (messageId: string) => string | undefined,
): Set<string> {
  const altered = new Set<string>();
  for (const [id, stored] of forms) {
    if (!produced.has(id)) continue;
    const expected = producedForm(id);
    if ([...stored].some((form) => form !== expected)) altered.add(id);
  }
  return altered;
}

/** Where the executor ended the schedule early, if it did. */
function scheduleCutOf(events: readonly Stamped[]): Pick<Observations, 'scheduleCut'> {
  const cut = eventsOfType(events, 'schedule-cut')[0];
  return cut === undefined ? {} : { scheduleCut: { ran: cut.ran, steps: cut.steps } };
}
