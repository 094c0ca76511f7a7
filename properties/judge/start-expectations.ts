import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { eventsOfType, type Stamped } from '../../harness/flow/history/index.ts';
import type { RawSinkSpec } from '../arbitraries/index.ts';
import { GuardModel } from './guard-model.ts';
import { topologyKey } from './topology-key.ts';

/** What the guard model expects from one partition at one start. */
export interface StartExpectation {
  readonly partition: number;
  readonly refuse: boolean;
  /** The routing layout changed (not only a Keeper table): the refusal text is the seed's, exactly. */
  readonly routingChanged: boolean;
  readonly undelivered: number;
  /** The change the start applies (its launch's label), for coverage per kind of change. */
  readonly label: string;
  readonly from: number;
  readonly until: number;
}

/** A launch recorded without a label applied no change of its own (a crash restart, the first start). */
export const SAME_SPEC = 'the same spec';

/**
 * Which starts had to refuse, derived from the run's history alone: every worker launch (its
 * spec and label), the store snapshot each of its partitions started from (how many batches were
 * undelivered), and whether the partition then started. A partition the worker never reported
 * (it died before) made no start and is owed nothing. Each start's window runs to the next
 * launch, the last one to the end of the history.
 */
export function startExpectations(events: readonly Stamped[], description: ClusterDescription): StartExpectation[] {
  const guard = new GuardModel();
  const launches = eventsOfType(events, 'worker-launch');
  const snapshots = eventsOfType(events, 'state-snapshot');
  const started = eventsOfType(events, 'partition-started');
  const refused = eventsOfType(events, 'partition-refused');
  const end = events.reduce((last, event) => Math.max(last, event.at), 0);
  return launches.flatMap((launch, index) => {
    const until = launches[index + 1]?.at ?? end;
    const key = topologyKey(launch.spec as RawSinkSpec, description);
    const ofThisWorker = <E extends { readonly partition: number; readonly pid: number }>(
      list: readonly E[],
      p: number,
    ) => list.find((event) => event.pid === launch.workerPid && event.partition === p);
    return launch.partitions.flatMap((partition) => {
      const ran = ofThisWorker(started, partition) !== undefined;
      if (!ran && ofThisWorker(refused, partition) === undefined) return [];
      const undelivered = ofThisWorker(snapshots, partition)?.undelivered.length ?? 0;
      const expectation: StartExpectation = {
        partition,
        ...guard.expect(partition, key, undelivered),
        undelivered,
        label: launch.label ?? SAME_SPEC,
        from: launch.at,
        until,
      };
      if (ran) guard.started(partition, key);
      return [expectation];
    });
  });
}
