import { commitKeeperCut } from '../server-window-fault.ts';
import { defineFamily } from './family.ts';

/**
 * Inside the server's own INSERT path (`../FAILPOINTS.md`): the aimed INSERT's part is written,
 * its replica is cut from Keeper before the commit, and the server answers UNKNOWN_STATUS_OF_INSERT
 * (319) with the commit never made; the heal drops the orphaned part. The INSERT must show 319 in
 * its answer and its query_log, and the nemesis must have seen it in both windows.
 */
export const COMMIT_KEEPER_CUT = defineFamily({
  id: 'commit_keeper_cut',
  type: 'server_window',
  heals: 'insert-ended',
  expects: 'absent',
  firstAttempt: true,
  params: {},
  proofs: ['server-code', 'window-hit'],
  label: () => "the INSERT's replica, between its part and its Keeper commit",
  aim: (t) => commitKeeperCut(t.replica),
});
