import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { HarnessError } from '../../harness/base/index.ts';
import type { FaultProxyClient, ProxyState } from './fault-proxy-client.ts';

/** Every proxy the cluster description names: each replica's client, interserver and Keeper links. */
export function describedProxies(description: ClusterDescription): string[] {
  return description.shards.flatMap((shard) =>
    shard.replicas.flatMap((replica) => [
      replica.proxies.client,
      replica.proxies.interserver,
      ...replica.proxies.keepers,
    ]),
  );
}

/** What is wrong with a proxy a run is about to use, or undefined when it is enabled with no toxic. */
function dirt(name: string, proxy: ProxyState | undefined): string | undefined {
  if (proxy === undefined) return `${name}: missing`;
  const problems = [
    ...(proxy.enabled ? [] : ['disabled']),
    ...proxy.toxics.map((toxic) => `toxic ${toxic.name} (${toxic.type}, ${toxic.stream})`),
  ];
  return problems.length === 0 ? undefined : `${name}: ${problems.join(', ')}`;
}

async function dirtyProxies(client: FaultProxyClient, names: readonly string[]) {
  const proxies = await client.proxies();
  return names.flatMap((name) => {
    const problem = dirt(name, proxies[name]);
    return problem === undefined ? [] : [{ name, problem }];
  });
}

/**
 * Removes every toxic from the named proxies and enables them, through the plain Toxiproxy REST
 * API, every answer checked. Unlike POST /reset it leaves alone the proxies the harness does not
 * own, which matters on a Toxiproxy another team shares (the external backend).
 */
export async function healProxies(client: FaultProxyClient, names: readonly string[]): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      const proxy = await client.proxy(name);
      for (const toxic of proxy.toxics) await client.removeToxic(name, toxic.name);
      if (!proxy.enabled) await client.setEnabled(name, true);
    }),
  );
}

/**
 * Before a run: every named proxy enabled with no toxic, so no run meets a fault its history
 * does not record. On a fault proxy the harness started (`owned`), a dirty proxy is healed once
 * and looked at again; still dirty, the run cannot start (an infrastructure error). On an
 * attached cluster a dirty proxy is never touched: the harness's own leftovers were undone from
 * its journal before this, so the fault is someone else's (another run on the cluster, an
 * operator) and the run cannot start. Returns what the heal found, for the run's log.
 */
export async function ensureProxiesClean(
  client: FaultProxyClient,
  names: readonly string[],
  owned: boolean,
): Promise<string[]> {
  const found = await dirtyProxies(client, names);
  if (found.length === 0) return [];
  if (!owned)
    throw new HarnessError(
      'CHAOS_PROXIES_NOT_OURS',
      `proxies faulted by something other than this run: ${found.map(({ problem }) => problem).join('; ')}; the harness leaves them alone (another run on this cluster? remove the fault, or \`--reap\` if a run of yours was killed on this machine)`,
    );
  await healProxies(
    client,
    found.map(({ name }) => name),
  );
  const left = await dirtyProxies(client, names);
  if (left.length > 0)
    throw new HarnessError(
      'CHAOS_PROXIES_DIRTY',
      `proxies still faulted after a heal: ${left.map(({ problem }) => problem).join('; ')}; something else is changing them (another run on this Toxiproxy?)`,
    );
  return found.map(({ problem }) => problem);
}
