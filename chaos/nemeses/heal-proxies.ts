import type { ClusterDescription } from '../../harness/cluster/description.ts';

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

/**
 * Removes every toxic from the named proxies and enables them, through the plain Toxiproxy REST
 * API. Unlike POST /reset it leaves alone the proxies the harness does not own, which matters on
 * a Toxiproxy another team shares (the external backend).
 */
export async function healProxies(api: string, names: readonly string[]): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      const proxy = (await (await fetch(new URL(`/proxies/${encodeURIComponent(name)}`, api))).json()) as {
        toxics?: { name: string }[];
      };
      for (const toxic of proxy.toxics ?? []) {
        await fetch(new URL(`/proxies/${encodeURIComponent(name)}/toxics/${encodeURIComponent(toxic.name)}`, api), {
          method: 'DELETE',
        });
      }
      await fetch(new URL(`/proxies/${encodeURIComponent(name)}`, api), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ enabled: true }),
      });
    }),
  );
}
