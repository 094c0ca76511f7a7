import fc from 'fast-check';
import { arbTiming } from '../../../properties/arbitraries/index.ts';
import { latency } from '../toxic-fault.ts';
import { defineFamily } from './family.ts';

/**
 * A latency on the Keeper links of the INSERT's replica (one per Keeper member), downstream: every
 * answer Keeper sends that replica comes `ms` (± `jitter`) late, so each Keeper operation the
 * INSERT waits for (its dedup check, its block number, its part's commit) takes at least that;
 * healed when the INSERT ended. Fired when the INSERT took at least `ms - jitter` — an unfaulted
 * INSERT here takes 15-65 ms — the faulted links carried traffic while it was in force, by the
 * fault proxy's counters, and the replica's zookeeper_log shows one of that INSERT's own Keeper
 * requests waiting at least `ms - jitter` for its answer (`keeper-wait`): a slow INSERT or the
 * replica's other Keeper traffic alone cannot show that. Its fault type is `latency`: coverage
 * counts it with the latency of a client link, and the description says which link it was.
 */
export const KEEPER_LINK_LATENCY = defineFamily({
  id: 'keeper_link_latency',
  type: 'latency',
  heals: 'insert-ended',
  params: { ms: 'number', jitter: 'number' },
  proofs: ['links-active', 'keeper-wait'],
  arbParams: () =>
    fc
      .record({ ms: arbTiming({ min: 200, max: 500 }), jitter: arbTiming({ min: 0, max: 50 }) })
      .map(({ ms, jitter }) => ({ ms, jitter })),
  label: ({ ms, jitter }) => `the Keeper links of the INSERT's replica, ${ms}ms±${jitter}`,
  aim: (t, { ms, jitter }) => latency(t.replica.proxies.keepers, ms, jitter),
});
