import type { FaultSpec } from '../fault-spec.ts';

/** The fault spec tests reach for: a reset of the aimed INSERT's response, which must have landed. */
export const RESPONSE_CUT: FaultSpec = {
  family: 'reset_peer',
  type: 'reset_peer',
  params: {},
  heals: 'insert-ended',
  expects: 'landed',
  label: "the INSERT's response",
};
