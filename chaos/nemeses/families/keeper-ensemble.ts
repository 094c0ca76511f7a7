import { keeperLeaderKill, keeperLeaderPause, keeperQuorumLoss } from '../keeper-fault.ts';
import { defineFamily } from './family.ts';

/**
 * Faults of a Keeper ensemble (three members), each aimed at an INSERT and healed when it ended:
 * its leader paused or killed (found when applied, by `srvr`), a majority paused (no quorum). The
 * INSERT's replica cut from every member is `keeper_link_cut` with scope `replica`.
 */
export const KEEPER_LEADER_PAUSE = defineFamily({
  id: 'keeper_leader_pause',
  type: 'keeper_pause',
  heals: 'insert-ended',
  params: {},
  proofs: [],
  processActions: ['pause', 'resume'],
  label: () => 'the Keeper leader',
  aim: () => keeperLeaderPause(),
});

export const KEEPER_LEADER_KILL = defineFamily({
  id: 'keeper_leader_kill',
  type: 'keeper_kill',
  heals: 'insert-ended',
  params: {},
  proofs: [],
  processActions: ['kill', 'start'],
  label: () => 'the Keeper leader',
  aim: () => keeperLeaderKill(),
});

export const KEEPER_QUORUM_LOSS = defineFamily({
  id: 'keeper_quorum_loss',
  type: 'keeper_quorum_loss',
  heals: 'insert-ended',
  params: {},
  proofs: [],
  processActions: ['pause', 'resume'],
  label: () => 'a majority of the ensemble',
  aim: () => keeperQuorumLoss(),
});
