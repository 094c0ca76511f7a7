import { HarnessError } from '../../base/index.ts';

/**
 * Every fault type of the chaos catalogue (`chaos/nemeses/README.md` describes each). The names
 * live here, with the history that records them, so the nemeses that apply a fault and the
 * checkers that judge its evidence share one vocabulary without depending on each other.
 */
export const FAULT_TYPES = [
  'latency',
  'bandwidth',
  'slicer',
  'timeout',
  'reset_peer',
  'limit_data',
  'proxy_down',
  'replica_kill',
  'replica_pause',
  'keeper_pause',
  'keeper_kill',
  'keeper_quorum_loss',
  'keeper_link_cut',
  'interserver_cut',
  'too_many_parts',
  'not_enough_space',
  'table_detached',
  'constraint_violated',
  'part_writer_failpoint',
  'server_window',
  'sink_crash',
  'broker_kill',
  'broker_pause',
  'replica_join',
] as const;
export type FaultType = (typeof FAULT_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(FAULT_TYPES);

const isFaultType = (value: unknown): value is FaultType => typeof value === 'string' && KNOWN.has(value);

/** A fault type read back from a stored file: checked, naming where, rather than cast. */
export function storedFaultType(value: unknown, where: string): FaultType {
  if (isFaultType(value)) return value;
  throw new HarnessError(
    'STORED_FAULT_TYPE_INVALID',
    `${where} names the fault ${JSON.stringify(value)}, not one of the catalogue's (${FAULT_TYPES.join(', ')}); the file was written by another version of the harness or edited by hand`,
  );
}
