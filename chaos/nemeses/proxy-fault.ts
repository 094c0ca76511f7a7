import type { Toxiproxy } from 'toxiproxy-node-client';
import { harnessClient, queryValue } from '../../harness/clickhouse/client.ts';
import type { Fault, FaultEffect, FaultType, FaultWindow, NemesisContext } from './fault.ts';

type ProxyFaultType = Extract<FaultType, 'proxy_down' | 'keeper_link_cut' | 'interserver_cut'>;

/** The client's update body wants every field; unchanged listen/upstream leave the proxy's sockets alone. */
async function setEnabled(toxiproxy: Toxiproxy, name: string, enabled: boolean): Promise<void> {
  const proxy = await toxiproxy.get(name);
  await proxy.update({ enabled, listen: proxy.listen, upstream: proxy.upstream });
}

/** Asks a node directly (bypassing its proxies) one number; 0 when it cannot answer. */
async function askDirect(context: NemesisContext, replica: string, query: string): Promise<number> {
  const endpoint = context.cluster.description.shards.flatMap((shard) => shard.replicas).find((r) => r.name === replica);
  if (endpoint === undefined) return 0;
  const client = harnessClient(endpoint.direct_http, { timeoutMs: 5000 });
  try {
    return Number(await queryValue<string>(client, query));
  } catch {
    return 0;
  } finally {
    await client.close();
  }
}

/**
 * Disables proxies (the listener closes first, then live connections drop) and re-enables them
 * on heal. Keeper-link and interserver cuts prove themselves on the cluster before heal.
 */
export class ProxyDownFault implements Fault {
  constructor(
    readonly type: ProxyFaultType,
    readonly targets: readonly string[],
    private readonly label: string,
    /** Replicas whose tables show the cut: Keeper sessions lost, or fetches failing. */
    private readonly witnesses: readonly string[] = [],
  ) {}

  get effect(): FaultEffect {
    return this.type === 'proxy_down' ? 'error' : 'verified';
  }

  /** What each witness showed before the cut: only a change caused by the cut counts. */
  private readonly baseline = new Map<string, number>();

  async apply(context: NemesisContext): Promise<FaultWindow> {
    for (const witness of this.witnesses) this.baseline.set(witness, await askDirect(context, witness, this.witnessQuery()));
    for (const name of this.targets) await setEnabled(context.toxiproxy, name, false);
    context.log.debug({ proxies: this.targets }, 'proxies disabled');
    return { type: this.type, description: this.toString(), targets: this.targets, appliedAt: Date.now() };
  }

  async probe(context: NemesisContext, window: FaultWindow): Promise<void> {
    for (const witness of this.witnesses) {
      if ((await askDirect(context, witness, this.witnessQuery())) > (this.baseline.get(witness) ?? 0)) {
        window.verified = true;
        return;
      }
    }
  }

  private witnessQuery(): string {
    return this.type === 'keeper_link_cut'
      ? 'SELECT count() FROM system.replicas WHERE is_readonly OR is_session_expired'
      : "SELECT sum(num_tries) FROM system.replication_queue WHERE last_exception != ''";
  }

  async heal({ toxiproxy, log }: NemesisContext, window: FaultWindow): Promise<void> {
    for (const name of this.targets) await setEnabled(toxiproxy, name, true);
    log.debug({ proxies: this.targets }, 'proxies enabled');
    window.healedAt ??= Date.now();
  }

  toString(): string {
    return `${this.type}(${this.label})`;
  }
}

export const proxyDown = (proxies: readonly string[]) => new ProxyDownFault('proxy_down', proxies, proxies.join('+'));
/** Cuts every Keeper link of the given replicas; they witness it by losing their sessions. */
export const keeperLinkCut = (proxies: readonly string[], replicas: readonly string[], label: string) =>
  new ProxyDownFault('keeper_link_cut', proxies, label, replicas);
/** Cuts replication endpoints; the replicas that fetch from them witness it through failing fetches. */
export const interserverCut = (proxies: readonly string[], witnesses: readonly string[]) => new ProxyDownFault('interserver_cut', proxies, proxies.join('+'), witnesses);
