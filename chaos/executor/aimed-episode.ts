import { setTimeout as delay } from 'node:timers/promises';
import { HarnessError } from '../../harness/base/index.ts';
import type { InsertGate, StartedFlowWorker } from '../../harness/flow/index.ts';
import type { GatedAttempt } from '../../harness/flow/history/index.ts';
import { aimTarget, type Fault, type FaultPlan, type FaultWindow, type NemesisContext } from '../nemeses/index.ts';
import { BackgroundWrite } from './background-write.ts';
import type { NemesisRecord } from './nemesis-record.ts';

/** How long an armed fault waits for the sink's next INSERT before it counts as missed. */
export const ARM_DEADLINE_MS = 30_000;
/** A fault healed when its INSERT ended still gives up waiting after this (every wait has a deadline). */
const UNTIL_ENDED_LIMIT_MS = 20_000;
/** A fault healed once the writes ended gives up waiting after this: a retry budget of 10 × 1 s fits well inside. */
const UNTIL_WRITES_END_LIMIT_MS = 30_000;
/** A witnessed fault holds until its witness saw it, or this long at least (the witness returns at once when it does). */
const WITNESS_LIMIT_MS = 10_000;

export interface EpisodeDeps {
  readonly worker: StartedFlowWorker;
  readonly nemesis: NemesisContext;
  readonly record: NemesisRecord;
  /** Aborted when the run is stopped (an interrupt, a budget's backstop): every wait ends, the fault is healed. */
  readonly signal: AbortSignal;
  /** After the heal: the episode's writes awaited as a recovery (bounded, a stall recorded); without it, plainly. */
  readonly recover?: (writing: BackgroundWrite, heal: EpisodeHeal, what: string) => Promise<void>;
}

/** The heal that ended an episode: its fault window, and when the heal began. */
export interface EpisodeHeal {
  readonly window: number;
  readonly healedAt: number;
}

export interface Episode {
  readonly plan: FaultPlan;
  readonly epochs: number;
  /** How long a fault healed `after-hold` stays. */
  readonly holdMs: number;
  /** Runs while the fault is in force, right after the aimed INSERT was let go. */
  readonly meanwhile?: (attempt: GatedAttempt) => Promise<void>;
  /** Aim at this partition's INSERT and write only it (default: every partition, the first INSERT). */
  readonly partition?: number;
  /** Runs after the heal, while the sink still waits to hear the aimed INSERT's outcome. */
  readonly beforeOutcome?: () => Promise<void>;
}

/**
 * Whichever settles first, or `onTimeout` after `ms`; rejects with the run's stop reason when
 * `stop` aborts first. The timer never outlives the race.
 */
async function raceDeadline<T, U>(
  promises: readonly Promise<T>[],
  ms: number,
  onTimeout: U,
  stop: AbortSignal,
): Promise<T | U> {
  const deadline = new AbortController();
  try {
    return await Promise.race([
      ...promises,
      delay(ms, onTimeout, { signal: AbortSignal.any([deadline.signal, stop]) }).catch((error: unknown) => {
        if (stop.aborted) throw stop.reason;
        throw error;
      }),
    ]);
  } finally {
    deadline.abort();
  }
}

/** The first INSERT the gate holds, or why none came: the writes ended, or the deadline passed. */
export function firstInsert(
  gate: InsertGate,
  writing: BackgroundWrite,
  deadlineMs: number,
  stop: AbortSignal,
): Promise<GatedAttempt | string> {
  return raceDeadline<GatedAttempt | string, string>(
    [gate.held, writing.over.then(() => 'the writes ended without an INSERT')],
    deadlineMs,
    `no INSERT started within ${deadlineMs / 1000} s`,
    stop,
  );
}

/** Waits for the moment the plan heals at: the INSERT ended, the writes ended, the effect witnessed, or the hold passed. */
export async function untilHealTime(
  { nemesis, signal }: EpisodeDeps,
  episode: Episode,
  aimed: {
    readonly gate: InsertGate;
    readonly writing: BackgroundWrite;
    readonly attempt: GatedAttempt;
    readonly fault: Fault;
    readonly window: FaultWindow;
  },
): Promise<void> {
  const { gate, writing, attempt, fault, window } = aimed;
  if (episode.plan.heals === 'insert-ended') {
    const ended = await raceDeadline(
      [
        gate.ended.then(
          () => true,
          () => true,
        ),
      ],
      UNTIL_ENDED_LIMIT_MS,
      false,
      signal,
    );
    // The sink never went on to send, or the INSERT outlived every timeout: say so, heal anyway.
    if (!ended)
      nemesis.log.warn(
        { fault: fault.toString(), queryId: attempt.queryId, waitedMs: UNTIL_ENDED_LIMIT_MS },
        'the aimed INSERT had not ended when the wait ran out; healing anyway',
      );
  } else if (episode.plan.heals === 'writes-ended') {
    // The sink's retries must meet the fault as well: it acts on each outcome at once.
    gate.openOutcome();
    await raceDeadline([writing.over], UNTIL_WRITES_END_LIMIT_MS, undefined, signal);
  } else if (fault.effect === 'witness' && fault.probe !== undefined)
    await fault.probe(nemesis, window, Date.now() + Math.max(episode.holdMs, WITNESS_LIMIT_MS));
  else await delay(episode.holdMs, undefined, { signal });
}

/** The plan's fault aimed at the replica a held attempt goes to; an endpoint no replica has is a harness error. */
export function aimAtAttempt(nemesis: NemesisContext, plan: FaultPlan, attempt: GatedAttempt): Fault {
  const target = aimTarget(nemesis.cluster.description, attempt.endpoint);
  if (target === undefined)
    throw new HarnessError(
      'CHAOS_AIM_UNKNOWN_ENDPOINT',
      `the INSERT ${attempt.queryId} goes to ${attempt.endpoint}, which is no replica's client address in the cluster description`,
    );
  return plan.aimAt(target);
}

/**
 * One fault episode aimed at the sink's next INSERT: arm a gate, start the writes, and when the
 * gate holds an INSERT, apply the fault to that INSERT's link or replica, let the INSERT go,
 * heal when it ended (or after the hold, for a fault that blocks it), and only then let the sink
 * see the outcome — or, for a fault that must outlast the sink's retries, heal once the writes
 * ended. An INSERT that never comes ends the episode as `fault-missed`, never as a hang.
 */
export async function aimedEpisode(deps: EpisodeDeps, episode: Episode, deadlineMs = ARM_DEADLINE_MS): Promise<void> {
  const { worker, nemesis, record, signal } = deps;
  const { plan } = episode;
  const only = episode.partition === undefined ? undefined : [episode.partition];
  const gate = await worker.armGate(episode.partition, {
    firstAttempt: plan.firstAttempt === true,
    aloneOnShard: plan.aloneOnShard === true,
  });
  const writing = new BackgroundWrite(worker, episode.epochs, only);
  const attempt = await firstInsert(gate, writing, deadlineMs, signal);
  if (typeof attempt === 'string') {
    await gate.disarm().catch(() => undefined);
    record.missed(plan, `armed on the next INSERT: ${attempt}`);
    nemesis.log.warn({ fault: plan.toString(), reason: attempt }, 'an armed fault met no INSERT');
    await writing.finish(`write(${episode.epochs}) beside ${plan.toString()}`);
    return;
  }
  let heal: EpisodeHeal | undefined;
  try {
    const fault = aimAtAttempt(nemesis, plan, attempt);
    signal.throwIfAborted();
    const window = await fault.apply(nemesis);
    try {
      const id = record.start(fault, window, attempt, plan);
      gate.openRequest();
      await episode.meanwhile?.(attempt);
      await untilHealTime(deps, episode, { gate, writing, attempt, fault, window });
      const healStartedAt = Date.now();
      await fault.heal(nemesis, window);
      record.end(id, window, healStartedAt);
      heal = { window: id, healedAt: healStartedAt };
      await episode.beforeOutcome?.();
    } catch (error) {
      await fault.heal(nemesis, window).catch(() => undefined);
      throw error;
    }
  } finally {
    gate.openRequest();
    gate.openOutcome();
  }
  const what = `write(${episode.epochs}) beside ${plan.toString()}`;
  if (heal !== undefined && deps.recover !== undefined) await deps.recover(writing, heal, what);
  else await writing.finish(what);
}
