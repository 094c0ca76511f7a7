import fc from 'fast-check';
import type { Fault } from '../nemeses/fault.ts';
import { interserverCut, keeperLinkCut, proxyDown } from '../nemeses/proxy-fault.ts';
import { keeperPause, replicaKill, replicaPause } from '../nemeses/process-fault.ts';
import { bandwidth, latency, limitData, resetPeer, slicer, timeout } from '../nemeses/toxic-fault.ts';
import type { ScenarioContext } from './scenario.ts';

/** Every client link of the spec most of the time (so the fault surely meets the sink), one of them sometimes. */
function arbClientLinks(context: ScenarioContext): fc.Arbitrary<readonly string[]> {
  const all = context.specReplicas.map((replica) => replica.clientProxy);
  return fc.oneof({ weight: 3, arbitrary: fc.constant(all) }, { weight: 1, arbitrary: fc.constantFrom(...all).map((one) => [one]) });
}

/**
 * Latency of at least 150 ms after jitter: the evidence that it fired is an INSERT through it
 * that took at least latency - jitter, which an unfaulted INSERT here (15-65 ms) never does.
 */
const arbLatency = (links: readonly string[]): fc.Arbitrary<Fault> =>
  fc.record({ ms: fc.integer({ min: 200, max: 800 }), jitter: fc.integer({ min: 0, max: 50 }) }).map(({ ms, jitter }) => latency(links, ms, jitter));

/** Faults that leave an INSERT committed but unanswered, or unanswered and uncommitted. */
export const arbUnknownOutcomeFault = (context: ScenarioContext): fc.Arbitrary<Fault> =>
  arbClientLinks(context).chain((links) =>
    fc.oneof(
      fc.constant(resetPeer(links)),
      fc.integer({ min: 1, max: 60 }).map((bytes) => limitData(links, bytes)),
      fc.integer({ min: 200, max: 1500 }).map((ms) => timeout(links, ms)),
    ),
  );

export const arbDegradationFault = (context: ScenarioContext): fc.Arbitrary<Fault> =>
  arbClientLinks(context).chain((links) =>
    fc.oneof(
      arbLatency(links),
      fc.integer({ min: 20, max: 200 }).map((rate) => bandwidth(links, rate)),
      fc.record({ size: fc.integer({ min: 1, max: 64 }), delay: fc.integer({ min: 0, max: 2000 }) }).map(({ size, delay }) => slicer(links, size, delay)),
      fc.constant(proxyDown(links)),
      fc.integer({ min: 300, max: 1500 }).map((ms) => timeout(links, ms, 'upstream')),
    ),
  );

/**
 * Faults that act on connections already open, on every client link: the at-most-once queue
 * sends few INSERTs, one at a time over kept-alive connections, which a reset_peer added later
 * never touches (it acts at connect time) and a fault on one link may miss.
 */
export const arbOpenConnectionFault = (context: ScenarioContext): fc.Arbitrary<Fault> => {
  const links = context.specReplicas.map((replica) => replica.clientProxy);
  return fc.oneof(
      fc.integer({ min: 1, max: 60 }).map((bytes) => limitData(links, bytes)),
      fc.integer({ min: 200, max: 1500 }).map((ms) => timeout(links, ms)),
      arbLatency(links),
  );
};

export const arbReplicaFault = (context: ScenarioContext): fc.Arbitrary<Fault> => {
  const replicas = context.specReplicas;
  // Whichever replica takes an INSERT, its siblings must fetch through a cut endpoint.
  const shards = new Set(replicas.map((replica) => replica.shard));
  const shardReplicas = context.description.shards.filter((shard) => shards.has(shard.name)).flatMap((shard) => shard.replicas);
  const cut = interserverCut(
    shardReplicas.map((replica) => replica.proxies.interserver),
    shardReplicas.map((replica) => replica.name),
  );
  return fc.oneof(
    fc.constantFrom(...replicas).map((replica) => replicaKill(replica.name)),
    fc.constantFrom(...replicas).map((replica) => replicaPause(replica.name)),
    fc.constant(cut),
  );
};

export const arbKeeperFault = (context: ScenarioContext): fc.Arbitrary<Fault> => {
  const everyReplica = context.description.shards.flatMap((shard) => shard.replicas);
  return fc.oneof(
    fc.constantFrom(...context.keepers).map((keeper) => keeperPause(keeper)),
    fc.constantFrom(...context.specReplicas).map((replica) => keeperLinkCut(replica.keeperProxies, [replica.name], replica.name)),
    fc.constant(keeperLinkCut(everyReplica.flatMap((replica) => replica.proxies.keepers), everyReplica.map((replica) => replica.name), 'all replicas')),
  );
};
