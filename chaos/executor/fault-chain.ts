import type { InsertGate, StartedFlowWorker } from '../../harness/flow/index.ts';
import type { GatedAttempt } from '../../harness/flow/history/index.ts';
import type { FaultPlan } from '../nemeses/index.ts';
import { aimAtAttempt, ARM_DEADLINE_MS, type EpisodeDeps, firstInsert, untilHealTime } from './aimed-episode.ts';
import { BackgroundWrite } from './background-write.ts';

/** A later link: its plan, and whether it meets the sink's retry or the replay after a kill. */
export interface PlannedLink {
  readonly plan: FaultPlan;
  readonly meets: 'retry' | 'replay';
}

export interface Chain {
  /** Meets the next INSERT (its first attempt where the plan needs one). */
  readonly first: FaultPlan;
  readonly later: readonly PlannedLink[];
  readonly epochs: number;
  /** How long a link healed `after-hold` stays. */
  readonly holdMs: number;
}

export interface ChainDeps extends EpisodeDeps {
  /** Starts the sink again from its store after the chain killed it, delivery held until the next writes. */
  readonly restart: () => Promise<StartedFlowWorker>;
}

/** One link on the attempt its gate holds: fault applied, request let go, healed when the plan says; the outcome stays held. */
async function faultHeldAttempt(
  deps: ChainDeps,
  chain: Chain,
  plan: FaultPlan,
  held: { readonly gate: InsertGate; readonly writing: BackgroundWrite; readonly attempt: GatedAttempt },
): Promise<void> {
  const { nemesis, record, signal } = deps;
  const { gate, attempt } = held;
  const fault = aimAtAttempt(nemesis, plan, attempt);
  signal.throwIfAborted();
  const window = await fault.apply(nemesis);
  try {
    const id = record.start(fault, window, attempt, plan);
    gate.openRequest();
    await untilHealTime(deps, { plan, epochs: chain.epochs, holdMs: chain.holdMs }, { ...held, fault, window });
    const healStartedAt = Date.now();
    await fault.heal(nemesis, window);
    record.end(id, window, healStartedAt);
  } catch (error) {
    await fault.heal(nemesis, window).catch(() => undefined);
    throw error;
  }
}

/**
 * Faults on consecutive attempts of ONE INSERT. The first link is aimed as an episode's fault is.
 * While a link's attempt is held at its outcome, healed, the next link is set up before anything
 * else can happen: for a `retry`, its gate is armed for that attempt's retry (same partition,
 * batch and shard, a higher attempt number) and then the sink sees the outcome, so the retry it
 * causes is the attempt the link holds; for a `replay`, the sink is killed without ever hearing
 * the outcome, restarted from its store with delivery held, the gate armed for any attempt of the
 * same batch and shard, and the writes started again, so the replay of that batch is the attempt
 * it holds. Every link stays as deterministic as an episode. An attempt that never comes (the one
 * before succeeded, the sink gave up, the writes ended, the deadline passed) ends that link and
 * the ones after it as `fault-missed`.
 */
export async function faultChain(deps: ChainDeps, chain: Chain, deadlineMs = ARM_DEADLINE_MS): Promise<void> {
  const { nemesis, record, signal } = deps;
  const links = [{ plan: chain.first, meets: 'first' as const }, ...chain.later];
  let worker = deps.worker;
  let gate = await worker.armGate(undefined, {
    firstAttempt: chain.first.firstAttempt === true,
    aloneOnShard: chain.first.aloneOnShard === true,
  });
  const gates = [gate];
  let writing = new BackgroundWrite(worker, chain.epochs);
  try {
    for (const [i, link] of links.entries()) {
      const attempt = await firstInsert(gate, writing, deadlineMs, signal);
      if (typeof attempt === 'string') {
        await gate.disarm().catch(() => undefined);
        const aim = i === 0 ? 'the next INSERT' : `the ${link.meets} after link ${i}`;
        for (const missed of links.slice(i)) record.missed(missed.plan, `armed on ${aim} of a chain: ${attempt}`);
        nemesis.log.warn(
          { fault: link.plan.toString(), link: i + 1, reason: attempt },
          'a chained fault met no INSERT',
        );
        break;
      }
      await faultHeldAttempt({ ...deps, worker }, chain, link.plan, { gate, writing, attempt });
      const next = links[i + 1];
      if (next === undefined) break;
      const same = { batch: attempt.batch, shard: attempt.shard };
      if (next.meets === 'retry') {
        const healed = gate;
        gate = await worker.armGate(attempt.partition, { retryOf: { ...same, attempt: attempt.attempt } });
        gates.push(gate);
        healed.openOutcome();
      } else {
        // The writes of the killed worker end with its exit; the restarted one writes anew.
        await worker.kill();
        worker = await deps.restart();
        gate = await worker.armGate(attempt.partition, { retryOf: { ...same, attempt: 0 } });
        gates.push(gate);
        writing = new BackgroundWrite(worker, 1);
      }
    }
  } finally {
    for (const each of gates) {
      each.openRequest();
      each.openOutcome();
    }
  }
  await writing.finish(`write(${chain.epochs}) beside a chain from ${chain.first.toString()}`);
}
