import { HarnessError } from '../../harness/base/index.ts';
import type { InsertGate } from '../../harness/flow/index.ts';
import type { GatedAttempt } from '../../harness/flow/history/index.ts';
import { aimTarget, type FaultPlan } from '../nemeses/index.ts';
import { ARM_DEADLINE_MS, type EpisodeDeps, firstInsert, untilHealTime } from './aimed-episode.ts';
import { BackgroundWrite } from './background-write.ts';

export interface Chain {
  /** The first link meets the next INSERT; each later one the retry of the attempt before it. */
  readonly links: readonly FaultPlan[];
  readonly epochs: number;
  /** How long a link healed `after-hold` stays. */
  readonly holdMs: number;
}

/** One link on the attempt its gate holds: fault applied, request let go, healed when the plan says; the outcome stays held. */
async function faultHeldAttempt(
  deps: EpisodeDeps,
  chain: Chain,
  plan: FaultPlan,
  held: { readonly gate: InsertGate; readonly writing: BackgroundWrite; readonly attempt: GatedAttempt },
): Promise<void> {
  const { nemesis, record, signal } = deps;
  const { gate, attempt } = held;
  const target = aimTarget(nemesis.cluster.description, attempt.endpoint);
  if (target === undefined)
    throw new HarnessError(
      'CHAOS_AIM_UNKNOWN_ENDPOINT',
      `the INSERT ${attempt.queryId} goes to ${attempt.endpoint}, which is no replica's client address in the cluster description`,
    );
  const fault = plan.aimAt(target);
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
 * Faults on consecutive attempts of ONE INSERT. The first link is aimed as an episode's fault is
 * (the next INSERT; its first attempt where the plan needs one). While a link's attempt is held
 * at its outcome, healed, the next link's gate is armed for that attempt's retry (same partition,
 * batch and shard, a higher attempt number), and only then does the sink see the outcome: so the
 * retry it causes is the attempt the next link holds, and every link stays as deterministic as
 * an episode. A retry that never comes (the attempt succeeded, the sink gave up, the writes
 * ended, the deadline passed) ends that link and the ones after it as `fault-missed`.
 */
export async function faultChain(deps: EpisodeDeps, chain: Chain, deadlineMs = ARM_DEADLINE_MS): Promise<void> {
  const { worker, nemesis, record, signal } = deps;
  const [first] = chain.links;
  if (first === undefined) throw new HarnessError('CHAOS_EMPTY_CHAIN', 'a fault chain needs at least one link');
  let gate = await worker.armGate(undefined, { firstAttempt: first.firstAttempt === true });
  const gates = [gate];
  const writing = new BackgroundWrite(worker, chain.epochs);
  try {
    for (const [i, plan] of chain.links.entries()) {
      const attempt = await firstInsert(gate, writing, deadlineMs, signal);
      if (typeof attempt === 'string') {
        await gate.disarm().catch(() => undefined);
        const aim = i === 0 ? 'the next INSERT' : `the retry after link ${i}`;
        for (const missed of chain.links.slice(i)) record.missed(missed, `armed on ${aim} of a chain: ${attempt}`);
        nemesis.log.warn({ fault: plan.toString(), link: i + 1, reason: attempt }, 'a chained fault met no INSERT');
        break;
      }
      await faultHeldAttempt(deps, chain, plan, { gate, writing, attempt });
      if (i + 1 === chain.links.length) break;
      const healed = gate;
      gate = await worker.armGate(attempt.partition, {
        retryOf: { batch: attempt.batch, shard: attempt.shard, attempt: attempt.attempt },
      });
      gates.push(gate);
      healed.openOutcome();
    }
  } finally {
    for (const each of gates) {
      each.openRequest();
      each.openOutcome();
    }
  }
  await writing.finish(`write(${chain.epochs}) beside a chain of ${chain.links.map(String).join(', ')}`);
}
