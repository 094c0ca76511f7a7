import fc from 'fast-check';
import type { ProcessAction } from '../../../harness/cluster/index.ts';
import type { FaultProof, FaultType, UnknownKind } from '../../../harness/flow/history/index.ts';
import type { FaultSpec, HealMoment } from '../../../properties/schedule/index.ts';
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
  /** Aim only at an attempt with no other in flight to its shard: a concurrent one would fail it first. */
  readonly aloneOnShard?: boolean;
  readonly params: S;
  /**
   * What it must show besides its effect to count as fired, from the history's closed set
   * (`FaultProof`); recorded on its `fault-start`, so the checker reads the rule from the history.
   */
  readonly proofs: readonly FaultProof[];
  /** The process actions it takes on cluster members; one that stops a member must also be seen stopped. */
  readonly processActions?: readonly ProcessAction[];
  /** Its generator's parameters, where the catalogue draws it on its own (`arbFault`; param-less families are constants). */
  arbParams?(context: FamilyContext): fc.Arbitrary<ParamsOf<S>>;
  /** What it acts on, as the schedule prints it. */
  label(params: ParamsOf<S>): string;
  /** The fault, aimed at the INSERT the gate caught (its link, its replica, its Keeper links). */
  aim(target: AimTarget, params: ParamsOf<S>): Fault;
}

/** What a family's generator may know of the cluster (faults are aimed later, at the INSERT they meet). */
export interface FamilyContext {
  readonly keepers: readonly string[];
}

/** A family, its parameter types inferred from its schema. */
export const defineFamily = <const S extends ParamSchema>(family: FaultFamily<S>): FaultFamily<S> => family;

/** The plain record a schedule holds: the family's decisions copied in beside the parameters. */
export function faultSpec<S extends ParamSchema>(family: FaultFamily<S>, params: ParamsOf<S>): FaultSpec {
  return {
    family: family.id,
    type: family.type,
    // A copy: fast-check's records have no prototype, which a stored schedule would not keep.
    params: { ...params } as FaultSpec['params'],
    heals: family.heals,
    ...(family.expects === undefined ? {} : { expects: family.expects }),
    ...(family.firstAttempt === true ? { firstAttempt: true } : {}),
    ...(family.aloneOnShard === true ? { aloneOnShard: true } : {}),
    label: family.label(params),
  };
}

/** The proofs its `fault-start` records: its own, and `process-seen` when it stops a member. */
export const recordedProofs = (family: FaultFamily): readonly FaultProof[] =>
  family.processActions?.some((action) => action === 'kill' || action === 'pause')
    ? ['process-seen', ...family.proofs]
    : family.proofs;

/** A family's own generator of specs (its `arbParams`), or its one spec when it has no parameters to draw. */
export function arbFault<S extends ParamSchema>(
  family: FaultFamily<S>,
  context: FamilyContext,
): fc.Arbitrary<FaultSpec> {
  const params = family.arbParams?.(context);
  return params === undefined
    ? fc.constant(faultSpec(family, {} as ParamsOf<S>))
    : params.map((drawn) => faultSpec(family, drawn));
}
