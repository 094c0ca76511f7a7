import { setTimeout as delay } from 'node:timers/promises';
import { withTimeout } from '../../harness/base/index.ts';
import type { InsertGate } from '../../harness/flow/index.ts';
import type { GatedAttempt } from '../../harness/flow/history/index.ts';
import type { FaultPlan } from '../nemeses/index.ts';
import { aimAtAttempt, type EpisodeDeps } from './aimed-episode.ts';
import { abortable, BackgroundWrite } from './background-write.ts';
import type { AppliedFault } from './nemesis-record.ts';

/** How long the armed gate waits for the sink's next INSERT before both faults count as missed. */
const ARM_DEADLINE_MS = 30_000;
/** A fault healed when its INSERT ended gives up waiting after this (the INSERT outlived every timeout). */
const UNTIL_ENDED_LIMIT_MS = 20_000;
/** A fault healed once the writes ended gives up waiting after this: a retry budget of 10 × 150 ms fits well inside. */
const UNTIL_WRITES_END_LIMIT_MS = 30_000;
/** A witnessed fault holds until its witness saw it, or this long at least. */
const WITNESS_LIMIT_MS = 10_000;

export interface OverlapEpisode {
  /** Applied in this order, both before the aimed INSERT's request goes. */
  readonly plans: readonly [FaultPlan, FaultPlan];
  /** The plan healed first; the other is healed at its own moment, and never before it. */
  readonly healFirst: 0 | 1;
  readonly epochs: number;
  /** How long a fault healed `after-hold` stays, from the moment the INSERT was let go. */
  readonly holdMs: number;
}

/** Resolves with `value` when `promise` settles, or `onTimeout` after `ms`: a bounded wait that never rejects on its own. */
const settledWithin = <T>(promise: Promise<unknown>, ms: number, value: T, onTimeout: T): Promise<T> =>
  withTimeout(
    promise.then(
      () => value,
      () => value,
    ),
    ms,
    'a heal moment',
  ).catch(() => onTimeout);

/**
 * Two faults aimed at one INSERT at once: a gate holds the sink's next INSERT, both faults are
 * applied to it (each recorded in the run's undo list by its own `apply`, so both are known
 * before the request goes and either can fail), the INSERT is let go, and each fault is healed at
 * its own moment, the drawn one first. The sink hears the INSERT's outcome once both are healed,
 * unless one lasts until the writes end: then at once, so its retries meet what is still in
 * force. On every path — an error, a stop, a failed apply or heal — whatever was applied is healed
 * before the episode returns or throws.
 */
export async function overlapEpisode(deps: EpisodeDeps, episode: OverlapEpisode): Promise<void> {
  const { worker, nemesis, record, signal } = deps;
  const firstAttempt = episode.plans.some((plan) => plan.firstAttempt === true);
  const aloneOnShard = episode.plans.some((plan) => plan.aloneOnShard === true);
  const gate = await worker.armGate(undefined, { firstAttempt, aloneOnShard });
  const writing = new BackgroundWrite(worker, episode.epochs);
  const what = `write(${episode.epochs}) beside ${episode.plans.map(String).join(' and ')}`;
  const deadline = new AbortController();
  const attempt = await abortable(
    Promise.race([
      gate.held,
      writing.over.then(() => 'the writes ended without an INSERT'),
      delay(ARM_DEADLINE_MS, `no INSERT started within ${ARM_DEADLINE_MS / 1000} s`, { signal: deadline.signal }),
    ]),
    signal,
  ).finally(() => deadline.abort());
  if (typeof attempt === 'string') {
    await gate.disarm().catch(() => undefined);
    for (const plan of episode.plans) record.missed(plan, `armed on the next INSERT with another fault: ${attempt}`);
    nemesis.log.warn({ faults: what, reason: attempt }, 'an overlapping pair met no INSERT');
    await writing.finish(what);
    return;
  }
  const applied: AppliedFault[] = [];
  try {
    for (const plan of episode.plans) {
      signal.throwIfAborted();
      const fault = aimAtAttempt(nemesis, plan, attempt);
      applied.push({ plan, fault, window: await fault.apply(nemesis) });
    }
    const [first, second] = applied as [AppliedFault, AppliedFault];
    const ids = record.startPair([first, second], attempt);
    gate.openRequest();
    const releasedAt = Date.now();
    for (const index of [episode.healFirst, 1 - episode.healFirst]) {
      const { fault, window } = applied[index] as AppliedFault;
      await untilHealMoment(deps, episode, { ...(applied[index] as AppliedFault), attempt, releasedAt, writing, gate });
      const healStartedAt = Date.now();
      await fault.heal(nemesis, window);
      record.end(ids[index] as number, window, healStartedAt);
    }
  } catch (error) {
    await Promise.allSettled(applied.map(({ fault, window }) => fault.heal(nemesis, window)));
    throw error;
  } finally {
    gate.openRequest();
    gate.openOutcome();
  }
  await writing.finish(what);
}

/** Waits for the moment one of the pair heals at: its INSERT ended, the writes ended, its effect witnessed, or its hold passed. */
async function untilHealMoment(
  { nemesis, signal }: EpisodeDeps,
  episode: OverlapEpisode,
  at: AppliedFault & {
    readonly attempt: GatedAttempt;
    readonly releasedAt: number;
    readonly writing: BackgroundWrite;
    readonly gate: InsertGate;
  },
): Promise<void> {
  const { plan, fault, window, attempt, releasedAt, writing, gate } = at;
  if (plan.heals === 'insert-ended') {
    const ended = await abortable(settledWithin(gate.ended, UNTIL_ENDED_LIMIT_MS, true, false), signal);
    if (!ended)
      nemesis.log.warn(
        { fault: fault.toString(), queryId: attempt.queryId, waitedMs: UNTIL_ENDED_LIMIT_MS },
        'the aimed INSERT had not ended when the wait ran out; healing anyway',
      );
  } else if (plan.heals === 'writes-ended') {
    // The sink's retries must meet this fault, and the other one while it lasts.
    gate.openOutcome();
    await abortable(settledWithin(writing.over, UNTIL_WRITES_END_LIMIT_MS, true, false), signal);
  } else if (fault.effect === 'witness' && fault.probe !== undefined)
    await fault.probe(nemesis, window, Date.now() + Math.max(episode.holdMs, WITNESS_LIMIT_MS));
  else
    await delay(Math.max(0, releasedAt + episode.holdMs - Date.now()), undefined, { signal }).catch(
      (error: unknown) => {
        // The run's stop reason, not the timer's AbortError, is what the run unwinds with.
        if (signal.aborted) throw signal.reason;
        throw error;
      },
    );
}
