import fc from 'fast-check';
import { keeperPause } from '../process-fault.ts';
import { keeperLinkCut } from '../proxy-fault.ts';
import { defineFamily } from './family.ts';

/** ZooKeeper (one member, named) paused while the INSERT needs it, for the episode's hold time. */
export const KEEPER_PAUSE = defineFamily({
  id: 'keeper_pause',
  type: 'keeper_pause',
  heals: 'after-hold',
  params: { keeper: 'string' },
  proofs: [],
  processActions: ['pause', 'resume'],
  arbParams: ({ keepers }) => fc.constantFrom(...keepers).map((keeper) => ({ keeper })),
  label: ({ keeper }) => keeper,
  aim: (_t, { keeper }) => keeperPause(keeper),
});

/** The Keeper links of the INSERT's replica, or of every replica, cut for the hold time. */
export const KEEPER_LINK_CUT = defineFamily({
  id: 'keeper_link_cut',
  type: 'keeper_link_cut',
  heals: 'after-hold',
  params: { scope: ['replica', 'all'] },
  proofs: [],
  arbParams: () => fc.constantFrom({ scope: 'replica' }, { scope: 'all' }),
  label: ({ scope }) => (scope === 'replica' ? "the INSERT's replica" : 'all replicas'),
  aim: (t, { scope }) =>
    keeperLinkCut(
      scope === 'replica'
        ? t.replica.proxies.keepers
        : t.description.shards.flatMap((shard) => shard.replicas.flatMap((replica) => replica.proxies.keepers)),
      scope === 'replica' ? t.replica.name : 'all replicas',
    ),
});
