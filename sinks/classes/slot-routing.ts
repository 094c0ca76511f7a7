import type { SinkMessage } from '../api.ts';
import { RendezvousRouter } from '../routing/rendezvous-router.ts';
import { routingKeyFor, type RoutingKey } from '../routing/routing-key.ts';
import type { StaticParameters } from '../spec/sink-spec.ts';
import { UNSHARDED_TARGET, type TargetSlot } from '../topology/topology-guard.ts';

/** Where the rows of one spec go: one unsharded slot, or rendezvous over the shard names. */
export interface SlotRouting {
  /** Undefined for the `host` / `hosts` forms. */
  readonly router: RendezvousRouter | undefined;
  readonly keyOf: (message: SinkMessage) => RoutingKey;
  readonly slotOf: (message: SinkMessage) => TargetSlot;
}

export function slotRoutingOf(parameters: StaticParameters): SlotRouting {
  const { topology, sharding_key_columns: keyColumns } = parameters;
  const keyOf = (message: SinkMessage) => routingKeyFor(message.id, message.row, keyColumns);
  if (topology.form !== 'shard_hosts') return { router: undefined, keyOf, slotOf: () => UNSHARDED_TARGET };
  const router = new RendezvousRouter(topology.shards.keys());
  return { router, keyOf, slotOf: (message) => router.route(keyOf(message)) };
}

/** The messages per slot, slots in canonical order, message order kept; empty slots left out. */
export function groupBySlot(
  messages: readonly SinkMessage[],
  routing: SlotRouting,
): { readonly slot: TargetSlot; readonly messages: readonly SinkMessage[] }[] {
  const bySlot = new Map<TargetSlot, SinkMessage[]>();
  for (const message of messages) {
    const slot = routing.slotOf(message);
    const list = bySlot.get(slot);
    if (list) list.push(message);
    else bySlot.set(slot, [message]);
  }
  const order: readonly TargetSlot[] = routing.router?.shards ?? [UNSHARDED_TARGET];
  return order.filter((slot) => bySlot.has(slot)).map((slot) => ({ slot, messages: bySlot.get(slot) ?? [] }));
}
