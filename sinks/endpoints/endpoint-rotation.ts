import { SinkError } from '../errors.ts';
import type { HostSelectionPolicy } from '../spec/sink-spec.ts';

/** A source of uniform numbers in [0, 1), injected so tests and replays are deterministic. */
export type Random = () => number;

/**
 * Where a client starts within one shard's host list: `ordered_round_robin` at the first host
 * in spec order; `random_start` at a uniformly random position chosen once per client. It only
 * moves the failover start, never routing, tokens or fingerprints.
 */
export function startIndex(hostCount: number, policy: HostSelectionPolicy, random: Random): number {
  if (policy === 'ordered_round_robin' || hostCount <= 1) return 0;
  return Math.min(hostCount - 1, Math.floor(random() * hostCount));
}

/**
 * The endpoints of one client, tried round-robin from the start position; no fresh shuffle per
 * attempt. `current` is the endpoint to use; `failover` moves to the next one.
 */
export class EndpointRotation {
  private position: number;

  constructor(
    readonly hosts: readonly string[],
    policy: HostSelectionPolicy,
    random: Random,
  ) {
    if (hosts.length === 0) throw new SinkError('SINK_INTERNAL', 'An endpoint rotation needs at least one host');
    this.position = startIndex(hosts.length, policy, random);
  }

  current(): string {
    return this.hosts[this.position] as string;
  }

  failover(): string {
    this.position = (this.position + 1) % this.hosts.length;
    return this.current();
  }

  /** Every host once, starting at the current one: the order a connection attempt walks. */
  order(): string[] {
    return this.hosts.map((_, i) => this.hosts[(this.position + i) % this.hosts.length] as string);
  }
}
