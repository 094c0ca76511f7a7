import { replicaKillReadingLog, replicaPause } from '../process-fault.ts';
import { interserverCut } from '../proxy-fault.ts';
import { defineFamily } from './family.ts';

/** Faults on the aimed INSERT's replica, held for the episode's hold time: they block the INSERT. */
export const REPLICA_KILL = defineFamily({
  id: 'replica_kill',
  type: 'replica_kill',
  heals: 'after-hold',
  params: {},
  proofs: [],
  processActions: ['kill', 'start'],
  label: () => "the INSERT's replica",
  aim: (t) => replicaKillReadingLog(t.replica.name),
});

export const REPLICA_PAUSE = defineFamily({
  id: 'replica_pause',
  type: 'replica_pause',
  heals: 'after-hold',
  params: {},
  proofs: [],
  processActions: ['pause', 'resume'],
  label: () => "the INSERT's replica",
  aim: (t) => replicaPause(t.replica.name),
});

/** The replica's replication endpoint: its siblings fail to fetch the part the INSERT writes (a batch's first attempt: a replay may write none). */
export const INTERSERVER_CUT = defineFamily({
  id: 'interserver_cut',
  type: 'interserver_cut',
  heals: 'after-hold',
  firstAttempt: true,
  params: {},
  proofs: [],
  label: () => "the INSERT's replica",
  aim: (t) =>
    interserverCut(
      [t.replica.proxies.interserver],
      t.siblings.map((sibling) => sibling.name),
    ),
});
