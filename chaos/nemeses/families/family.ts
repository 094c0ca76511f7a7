import type { FaultType } from '../../../harness/flow/history/fault-type.ts';
import type { UnknownKind } from '../../../harness/flow/history/history-events.ts';
import type { FaultSpec, HealMoment } from '../../../properties/schedule/fault-spec.ts';
import type { Fault } from '../fault.ts';
import type { AimTarget } from '../fault-plan.ts';

/** A parameter of a family: a number, any name (a Keeper member), or one of a few names. */
export type ParamKind = 'number' | 'string' | readonly string[];
export type ParamSchema = Readonly<Record<string, ParamKind>>;
type ParamValue<K extends ParamKind> = K extends 'number' ? number : K extends readonly (infer S)[] ? S : string;
export type ParamsOf<S extends ParamSchema> = { readonly [N in keyof S]: ParamValue<S[N]> };

/**
 * One fault family: everything the harness knows of one kind of aimed fault, in one place. A
 * schedule holds a family's `FaultSpec` (plain data); the executor builds the fault from it with
 * `aim` once the gate caught the INSERT it acts on.
 */
export interface FaultFamily<S extends ParamSchema = ParamSchema> {
  /** The name a `FaultSpec` and `schedule.json` give it. */
  readonly id: string;
  /** What the history records and coverage counts (several families may share one). */
  readonly type: FaultType;
  readonly heals: HealMoment;
  /** The unknown outcome it is built to produce, if any. */
  readonly expects?: UnknownKind;
  /** Aim only at a batch's first attempt: the fault needs the server to write a new part. */
  readonly firstAttempt?: boolean;
  readonly params: S;
  /** What it acts on, as the schedule prints it. */
  label(params: ParamsOf<S>): string;
  /** The fault, aimed at the INSERT the gate caught (its link, its replica, its Keeper links). */
  aim(target: AimTarget, params: ParamsOf<S>): Fault;
}

/** A family, its parameter types inferred from its schema. */
export const defineFamily = <const S extends ParamSchema>(family: FaultFamily<S>): FaultFamily<S> => family;

/** The plain record a schedule holds: the family's decisions copied in beside the parameters. */
export function faultSpec<S extends ParamSchema>(family: FaultFamily<S>, params: ParamsOf<S>): FaultSpec {
  return {
    family: family.id,
    type: family.type,
    params: params as FaultSpec['params'],
    heals: family.heals,
    ...(family.expects === undefined ? {} : { expects: family.expects }),
    ...(family.firstAttempt === true ? { firstAttempt: true } : {}),
    label: family.label(params),
  };
}
