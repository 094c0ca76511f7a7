import { HarnessError } from '../../../harness/base/index.ts';
import {
  describeFault,
  type FaultCheck,
  type FaultSpec,
  HEAL_MOMENTS,
  type HealMoment,
} from '../../../properties/schedule/index.ts';
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
import { recordedProofs, type FaultFamily, type ParamKind, type ParamsOf, type ParamSchema } from './family.ts';
import { KEEPER_LINK_CUT, KEEPER_PAUSE } from './keeper.ts';
import { KEEPER_LINK_LATENCY } from './keeper-link-latency.ts';
import { KEEPER_LEADER_KILL, KEEPER_LEADER_PAUSE, KEEPER_QUORUM_LOSS } from './keeper-ensemble.ts';
import { QUORUM_INTERSERVER_CUT, QUORUM_SIBLING_KILL, QUORUM_SIBLING_PAUSE } from './quorum.ts';
import { INTERSERVER_CUT, REPLICA_KILL, REPLICA_PAUSE } from './replica.ts';
import { SERVER_ERROR_FAMILIES } from './server-error.ts';
import { COMMIT_KEEPER_CUT } from './server-window.ts';

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
  KEEPER_LINK_LATENCY,
  KEEPER_LEADER_PAUSE,
  KEEPER_LEADER_KILL,
  KEEPER_QUORUM_LOSS,
  ...Object.values(SERVER_ERROR_FAMILIES),
  COMMIT_KEEPER_CUT,
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
    ...(spec.aloneOnShard === undefined ? {} : { aloneOnShard: spec.aloneOnShard }),
    proofs: recordedProofs(family),
    aimAt: (target) => family.aim(target, spec.params as ParamsOf<ParamSchema>),
    toString: () => describeFault(spec),
  };
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function paramProblem(kind: ParamKind, value: unknown): string | undefined {
  if (kind === 'number') return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
  if (kind === 'string') return typeof value === 'string' ? undefined : 'must be a string';
  return kind.includes(value as string) ? undefined : `must be one of ${kind.join(', ')}`;
}

/**
 * A fault read back from `schedule.json`, checked against the registry: a family it knows, the
 * family's fault type and parameters, a heal moment, an unknown outcome, a flag and a label of the
 * right kinds. What it returns is the stored spec, not the family's current decisions: a replay
 * runs what the stored run ran.
 */
export const checkFaultSpec: FaultCheck = (value) => {
  if (!isObject(value)) return { at: 'family', problem: `is missing: the fault is ${JSON.stringify(value)}` };
  const keys = ['family', 'type', 'params', 'heals', 'expects', 'firstAttempt', 'aloneOnShard', 'label'];
  const extra = Object.keys(value).find((key) => !keys.includes(key));
  if (extra !== undefined) return { at: extra, problem: `is not a field of a fault (${keys.join(', ')})` };
  const family = FAULT_FAMILIES.get(String(value.family));
  if (family === undefined)
    return {
      at: 'family',
      problem: `is ${JSON.stringify(value.family)}, not a fault family of the catalogue (${[...FAULT_FAMILIES.keys()].join(', ')})`,
    };
  if (value.type !== family.type)
    return { at: 'type', problem: `is ${JSON.stringify(value.type)}; family ${family.id} records ${family.type}` };
  if (!isObject(value.params)) return { at: 'params', problem: 'must be an object of the family’s parameters' };
  const names = Object.keys(family.params);
  const unknown = Object.keys(value.params).find((name) => !names.includes(name));
  if (unknown !== undefined)
    return { at: `params.${unknown}`, problem: `is not a parameter of ${family.id} (${names.join(', ') || 'none'})` };
  for (const [name, kind] of Object.entries(family.params)) {
    const problem = paramProblem(kind, value.params[name]);
    if (problem !== undefined)
      return { at: `params.${name}`, problem: `${problem}, got ${JSON.stringify(value.params[name])}` };
  }
  if (!HEAL_MOMENTS.includes(value.heals as HealMoment))
    return { at: 'heals', problem: `must be one of ${HEAL_MOMENTS.join(', ')}, got ${JSON.stringify(value.heals)}` };
  if (value.expects !== undefined && value.expects !== 'landed' && value.expects !== 'absent')
    return { at: 'expects', problem: `must be landed or absent, got ${JSON.stringify(value.expects)}` };
  if (value.firstAttempt !== undefined && typeof value.firstAttempt !== 'boolean')
    return { at: 'firstAttempt', problem: `must be true or false, got ${JSON.stringify(value.firstAttempt)}` };
  if (value.aloneOnShard !== undefined && typeof value.aloneOnShard !== 'boolean')
    return { at: 'aloneOnShard', problem: `must be true or false, got ${JSON.stringify(value.aloneOnShard)}` };
  if (typeof value.label !== 'string')
    return { at: 'label', problem: `must be a string, got ${JSON.stringify(value.label)}` };
  return value as unknown as FaultSpec;
};
