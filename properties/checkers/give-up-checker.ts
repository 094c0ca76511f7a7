import type { AnomalyKind } from './anomaly-category.ts';
import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import { GIVE_UP_TEXT } from './from-history.ts';
import type { AttemptRecord, GiveUpRecord, Observations } from './observations.ts';

export type SeedErrorClass = 'transient' | 'unclassified' | 'permanent';

/** Server codes that report the transport or a timeout: the only server errors the seed calls transient. */
const TRANSPORT_SERVER_CODES: ReadonlySet<string> = new Set([
  '95',
  '96',
  '100',
  '102',
  '159',
  '198',
  '209',
  '210',
  '279',
]);
/** Certificate refusals: configuration the server cannot change by waiting. */
const CERTIFICATE_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

/**
 * The seed's class of a failed attempt, judged from what the history recorded of it and not from
 * the class the sink gave it: a server code is unclassified unless it reports the transport or a
 * timeout (so UNKNOWN_STATUS_OF_INSERT is unclassified though its outcome is unknown); a socket or
 * DNS code is transient, a refused certificate permanent; an attempt with no answer and no code
 * timed out or lost its connection (nothing in this harness answers HTTP but ClickHouse), so it
 * is transient. Undefined when the record says too little to judge.
 */
export function seedErrorClass(attempt: AttemptRecord): SeedErrorClass | undefined {
  if (attempt.outcome === 'ok') return undefined;
  const code = attempt.errorCode;
  if (code === undefined) return attempt.outcome === 'unknown' ? 'transient' : undefined;
  if (/^\d+$/.test(code)) return TRANSPORT_SERVER_CODES.has(code) ? 'transient' : 'unclassified';
  if (CERTIFICATE_CODES.test(code)) return 'permanent';
  return 'transient';
}

const clip = (text: string, length: number) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

type GiveUpBreachKind = Extract<
  AnomalyKind,
  'give-up-text' | 'give-up-on-transient' | 'give-up-early' | 'give-up-late' | 'give-up-without-attempt'
>;

/** Why the seed's contract does not allow this give-up, or undefined when it does. */
export function giveUpBreach(
  giveUp: GiveUpRecord,
): { readonly category: GiveUpBreachKind; readonly why: string } | undefined {
  const label = `partition ${giveUp.partition} batch ${giveUp.batch}`;
  if (giveUp.message !== GIVE_UP_TEXT)
    return { category: 'give-up-text', why: `${label}: "${giveUp.message.split('\n')[0]?.slice(0, 80)}"` };
  const last = giveUp.attempts.at(-1);
  // The seed gives up without an attempt only on a value its column cannot take; every row the
  // sources produce fits its column, so a "permanent" claim with no attempt has nothing behind it.
  if (last === undefined)
    return {
      category: 'give-up-without-attempt',
      why: `${label}: no INSERT was attempted${giveUp.claim ? ` (the sink said: ${giveUp.claim.errorClass}, ${clip(giveUp.claim.lastError, 80)})` : ''}`,
    };
  const lastClass = seedErrorClass(last);
  if (lastClass === 'transient')
    return {
      category: 'give-up-on-transient',
      why: `${label}: the last attempt ${last.queryId} failed in the transport (${last.errorCode ?? 'no answer'})`,
    };
  if (lastClass === 'unclassified' && giveUp.attempts.length < giveUp.budget.fewest) {
    return {
      category: 'give-up-early',
      why: `${label}: ${giveUp.attempts.length} attempt(s), max_insert_attempts = ${giveUp.budget.fewest}`,
    };
  }
  // The seed counts every attempt and gives up at the first unclassified failure once the count
  // reached the budget: a retry after such a failure spent attempts the budget did not allow.
  const overrun = giveUp.attempts
    .slice(0, -1)
    .findIndex((attempt, index) => index + 1 >= giveUp.budget.most && seedErrorClass(attempt) === 'unclassified');
  if (overrun >= 0)
    return {
      category: 'give-up-late',
      why: `${label}: attempt ${overrun + 1} failed unclassified with max_insert_attempts = ${giveUp.budget.most}, yet ${giveUp.attempts.length - overrun - 1} more followed`,
    };
  return undefined;
}

/**
 * The give-up contract (seed: "Giving up insert into ClickHouse", then the instance refuses every
 * later write): a give-up says exactly the seed's text; it comes after a permanent error at once,
 * or after an unclassified error once `max_insert_attempts` attempts were made (not before, and
 * not after: the first unclassified failure at the budget ends the insert), never on a
 * transient error; and the retry of the job on the same instance is refused without an INSERT.
 */
export function giveUpChecker(observations: Observations): CheckResult {
  const breaches = observations.giveUps.map(giveUpBreach).filter((breach) => breach !== undefined);
  const byCategory = (category: GiveUpBreachKind) =>
    breaches.filter((breach) => breach.category === category).map((breach) => breach.why);
  const accepted = observations.writesAfterGiveUp
    .filter((write) => !write.refused)
    .map((write) => `partition ${write.partition} batch ${write.batch}${write.error ? `: ${write.error}` : ''}`);
  const notes = observations.giveUps.map(
    (giveUp) =>
      `gave up: partition ${giveUp.partition} batch ${giveUp.batch}${giveUp.token ? ` (token ${giveUp.token})` : ''} after ${giveUp.attempts.length} attempt(s)${giveUp.claim ? `, ${giveUp.claim.errorClass}: ${clip(giveUp.claim.lastError, 120)}` : ''}`,
  );
  return resultOf(
    'give-up',
    [
      anomaly('give-up-text', byCategory('give-up-text')),
      anomaly('give-up-on-transient', byCategory('give-up-on-transient')),
      anomaly('give-up-early', byCategory('give-up-early')),
      anomaly('give-up-late', byCategory('give-up-late')),
      anomaly('give-up-without-attempt', byCategory('give-up-without-attempt')),
      anomaly('write-after-give-up', accepted),
    ],
    notes.length > 0 ? notes : undefined,
  );
}
