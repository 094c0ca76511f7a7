import { HarnessError } from '../../../harness/errors.ts';
import { describeFault, type FaultSpec } from '../../../properties/schedule/fault-spec.ts';
import type { FaultPlan } from '../fault-plan.ts';
import {
  BANDWIDTH,
  LATENCY,
  LIMIT_DATA,
  PROXY_DOWN,
  REQUEST_TIMEOUT,
  RESET_PEER,
  RESPONSE_TIMEOUT,
  SLICER,
} from './client-link.ts';
import type { FaultFamily, ParamsOf, ParamSchema } from './family.ts';
import { KEEPER_LINK_CUT, KEEPER_PAUSE } from './keeper.ts';
import { KEEPER_LEADER_KILL, KEEPER_LEADER_PAUSE, KEEPER_QUORUM_LOSS } from './keeper-ensemble.ts';
import { QUORUM_INTERSERVER_CUT, QUORUM_SIBLING_KILL, QUORUM_SIBLING_PAUSE } from './quorum.ts';
import { INTERSERVER_CUT, REPLICA_KILL, REPLICA_PAUSE } from './replica.ts';
import { SERVER_ERROR_FAMILIES } from './server-error.ts';

/** Every fault family a schedule may name: one line each. */
const FAMILIES: readonly FaultFamily[] = [
  RESET_PEER,
  LIMIT_DATA,
  RESPONSE_TIMEOUT,
  REQUEST_TIMEOUT,
  LATENCY,
  BANDWIDTH,
  SLICER,
  PROXY_DOWN,
  REPLICA_KILL,
  REPLICA_PAUSE,
  INTERSERVER_CUT,
  QUORUM_SIBLING_PAUSE,
  QUORUM_SIBLING_KILL,
  QUORUM_INTERSERVER_CUT,
  KEEPER_PAUSE,
  KEEPER_LINK_CUT,
  KEEPER_LEADER_PAUSE,
  KEEPER_LEADER_KILL,
  KEEPER_QUORUM_LOSS,
  ...Object.values(SERVER_ERROR_FAMILIES),
];

export const FAULT_FAMILIES: ReadonlyMap<string, FaultFamily> = new Map(FAMILIES.map((family) => [family.id, family]));

export function faultFamily(id: string): FaultFamily {
  const family = FAULT_FAMILIES.get(id);
  if (family === undefined)
    throw new HarnessError(
      'CHAOS_FAULT_UNKNOWN',
      `the schedule names the fault family '${id}', not one of the catalogue's (${[...FAULT_FAMILIES.keys()].join(', ')})`,
    );
  return family;
}

/** A schedule's fault made ready to aim: the family builds it at the INSERT the gate caught. */
export function planOf(spec: FaultSpec): FaultPlan {
  const family = faultFamily(spec.family);
  return {
    type: spec.type,
    heals: spec.heals,
    ...(spec.expects === undefined ? {} : { expects: spec.expects }),
    ...(spec.firstAttempt === undefined ? {} : { firstAttempt: spec.firstAttempt }),
    aimAt: (target) => family.aim(target, spec.params as ParamsOf<ParamSchema>),
    toString: () => describeFault(spec),
  };
}
