import { HarnessError } from '../../../harness/base/index.ts';
import type { AimTarget } from '../fault-plan.ts';
import { replicaKillReadingLog, replicaPause } from '../process-fault.ts';
import { quorumInterserverCut } from '../proxy-fault.ts';
import { quorumSettled } from '../quorum-settled.ts';
import { defineFamily } from './family.ts';

/**
 * Faults on what a quorum INSERT waits for, applied right before its request and healed when it
 * ended: its sibling stopped or killed, or its own replication endpoint cut. The INSERT commits
 * its part locally and then fails its quorum (UNKNOWN_STATUS_OF_INSERT); the sink replays. Each
 * aims at an INSERT alone on its shard: under a sequential quorum one that starts while another
 * still waits for its quorum fails at once (286), and the fault would meet nothing.
 */

/** The sibling a quorum INSERT waits for (the first other replica of its shard). */
function quorumSibling(target: AimTarget): string {
  const [sibling] = target.siblings;
  if (sibling === undefined)
    throw new HarnessError(
      'CHAOS_NO_SIBLING',
      `replica ${target.replica.name} has no sibling in its shard: a quorum fault needs 2 or more replicas per shard`,
    );
  return sibling.name;
}

const DURING_QUORUM = 'while its quorum is awaited';

export const QUORUM_SIBLING_PAUSE = defineFamily({
  id: 'quorum_sibling_pause',
  type: 'replica_pause',
  heals: 'insert-ended',
  expects: 'landed',
  firstAttempt: true,
  aloneOnShard: true,
  params: {},
  proofs: [],
  processActions: ['pause', 'resume'],
  label: () => `a sibling of the INSERT's replica, ${DURING_QUORUM}`,
  aim: (t) => quorumSettled(replicaPause(quorumSibling(t)), [t.replica, ...t.siblings]),
});

export const QUORUM_SIBLING_KILL = defineFamily({
  id: 'quorum_sibling_kill',
  type: 'replica_kill',
  heals: 'insert-ended',
  expects: 'landed',
  firstAttempt: true,
  aloneOnShard: true,
  params: {},
  proofs: [],
  processActions: ['kill', 'start'],
  label: () => `a sibling of the INSERT's replica, ${DURING_QUORUM}`,
  aim: (t) => quorumSettled(replicaKillReadingLog(quorumSibling(t)), [t.replica, ...t.siblings]),
});

export const QUORUM_INTERSERVER_CUT = defineFamily({
  id: 'quorum_interserver_cut',
  type: 'interserver_cut',
  heals: 'insert-ended',
  expects: 'landed',
  firstAttempt: true,
  aloneOnShard: true,
  params: {},
  proofs: [],
  label: () => `the INSERT's replica, ${DURING_QUORUM}`,
  aim: (t) => quorumSettled(quorumInterserverCut([t.replica.proxies.interserver]), [t.replica, ...t.siblings]),
});
