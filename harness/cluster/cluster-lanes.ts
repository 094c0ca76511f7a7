/**
 * How the job's cluster groups share the machine: up to `lanes` groups at once, each on a cluster
 * of its own. A group starts only when the memory left, less what the other running groups may
 * still take at their peak, holds its own peak; otherwise it waits for one of them to end, and
 * only a group that is short while nothing else runs is refused. Counting a running group's whole
 * peak although some of it is already in use is deliberate: it errs towards waiting, never towards
 * a member killed by the OOM killer mid-run (a fault nobody injected).
 */
export interface LanePlan<G> {
  readonly lanes: number;
  /** The group's peak memory, in MiB. */
  readonly needMiB: (group: G) => number;
  /** Why the group cannot start with this much memory left, or undefined when it can. */
  readonly shortfall: (group: G, availableMiB: number) => string | undefined;
  readonly availableMiB: () => number;
  /** True once no new group may start (an interrupt, or another lane's failure). */
  readonly stopped: () => boolean;
  readonly run: (group: G) => Promise<void>;
  /** A group that was never started: the job stopped first, or the machine cannot hold it. */
  readonly skip: (group: G, why: { readonly stopped: true } | { readonly short: string }) => void;
}

/**
 * Runs every group, in order of start, at most `lanes` at once. A group's failure stops new
 * starts and is rethrown once the groups in flight have ended (the caller aborts them through
 * `stopped`'s signal), so no cluster outlives the call.
 */
export async function runInLanes<G>(groups: readonly G[], plan: LanePlan<G>): Promise<void> {
  const queue = [...groups];
  const running = new Set<G>();
  let ended: Array<() => void> = [];
  let failure: { readonly error: unknown } | undefined;
  const oneEnds = () => new Promise<void>((resolve) => ended.push(resolve));
  const shortNow = (group: G): string | undefined => {
    let others = 0;
    for (const other of running) others += plan.needMiB(other);
    return plan.shortfall(group, plan.availableMiB() - others);
  };
  const lane = async (): Promise<void> => {
    for (let group = queue.shift(); group !== undefined; group = queue.shift()) {
      let short = plan.stopped() || failure !== undefined ? undefined : shortNow(group);
      while (short !== undefined && running.size > 0 && !plan.stopped()) {
        await oneEnds();
        short = shortNow(group);
      }
      if (plan.stopped() || failure !== undefined) {
        plan.skip(group, { stopped: true });
        continue;
      }
      if (short !== undefined) {
        plan.skip(group, { short });
        continue;
      }
      running.add(group);
      try {
        await plan.run(group);
      } catch (error) {
        failure ??= { error };
      } finally {
        running.delete(group);
        const waiting = ended;
        ended = [];
        for (const wake of waiting) wake();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.lanes, groups.length)) }, lane));
  if (failure !== undefined) throw failure.error;
}
