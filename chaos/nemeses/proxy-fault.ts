import { harnessClient, queryValue } from '../../harness/cluster/index.ts';
import type { Fault, FaultEffect, FaultWindow, NemesisContext } from './fault.ts';
import type { FaultType } from '../../harness/flow/history/index.ts';
import { refusedByFaultProxy } from './fault-proxy-client.ts';
import type { FaultUndo } from './run-undo.ts';

type ProxyFaultType = Extract<FaultType, 'proxy_down' | 'keeper_link_cut' | 'interserver_cut'>;

const EFFECT: Readonly<Record<ProxyFaultType, FaultEffect>> = {
  proxy_down: 'error',
  keeper_link_cut: 'blocked',
  interserver_cut: 'witness',
};

const PROBE_INTERVAL_MS = 100;

/** Asks a node directly (bypassing its proxies) one number; 0 when it cannot answer. */
async function askDirect(context: NemesisContext, replica: string, query: string): Promise<number> {
  const endpoint = context.cluster.description.shards
    .flatMap((shard) => shard.replicas)
    .find((r) => r.name === replica);
  if (endpoint === undefined) return 0;
  const client = harnessClient(endpoint.direct_http, {
    timeoutMs: 5000,
    credentials: context.cluster.description.credentials,
  });
  try {
    return Number(await queryValue<string>(client, query));
  } catch {
    return 0;
  } finally {
    await client.close();
  }
}

/** Failed fetch tries in the run's own database: an earlier run's leftovers never count. */
const failedFetches = (database: string) =>
  `SELECT sum(num_tries) FROM system.replication_queue WHERE database = '${database}' AND type = 'GET_PART' AND last_exception != ''`;

/**
 * Disables proxies (the listener closes first, then live connections drop) and re-enables them
 * on heal. An interserver cut proves itself on the cluster: a sibling of the cut replica fails
 * to fetch the run's new part through it.
 */
export class ProxyDownFault implements Fault {
  /** What each witness showed before the cut: only a change caused by the cut counts. */
  private readonly baseline = new Map<string, number>();
  private undo: FaultUndo | undefined;

  constructor(
    readonly type: ProxyFaultType,
    readonly targets: readonly string[],
    private readonly label: string,
    /** Replicas whose replication queues show an interserver cut. */
    private readonly witnesses: readonly string[] = [],
    /** How it shows that it met the INSERT; by default the type's (`EFFECT`). */
    readonly effect: FaultEffect = EFFECT[type],
  ) {}

  async apply(context: NemesisContext): Promise<FaultWindow> {
    for (const witness of this.witnesses)
      this.baseline.set(witness, await askDirect(context, witness, failedFetches(context.database)));
    const own = (this.undo = context.undo.fault());
    await own.applying(async () => {
      for (const proxy of this.targets)
        await own.do(
          { kind: 'proxy-disabled', proxy },
          () => context.proxies.setEnabled(proxy, false),
          refusedByFaultProxy,
        );
    });
    context.log.debug({ proxies: this.targets }, 'proxies disabled');
    return { type: this.type, description: this.toString(), targets: this.targets, appliedAt: Date.now() };
  }

  async probe(context: NemesisContext, window: FaultWindow, until: number): Promise<void> {
    if (this.witnesses.length === 0) return;
    for (;;) {
      for (const witness of this.witnesses) {
        if ((await askDirect(context, witness, failedFetches(context.database))) > (this.baseline.get(witness) ?? 0)) {
          window.verified = true;
          return;
        }
      }
      if (Date.now() >= until) return;
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
  }

  async heal({ log }: NemesisContext, window: FaultWindow): Promise<void> {
    await this.undo?.undo();
    log.debug({ proxies: this.targets }, 'proxies enabled');
    window.healedAt ??= Date.now();
  }

  toString(): string {
    return `${this.type}(${this.label})`;
  }
}

export const proxyDown = (proxies: readonly string[]) => new ProxyDownFault('proxy_down', proxies, proxies.join('+'));
/** Cuts every Keeper link of the given replicas: their Keeper operations stall, then fail. */
export const keeperLinkCut = (proxies: readonly string[], label: string) =>
  new ProxyDownFault('keeper_link_cut', proxies, label);
/** Cuts replication endpoints; the replicas that fetch from them witness it through failing fetches. */
export const interserverCut = (proxies: readonly string[], witnesses: readonly string[]) =>
  new ProxyDownFault('interserver_cut', proxies, proxies.join('+'), witnesses);
/**
 * Cuts the replication endpoint of a quorum INSERT's replica: its siblings cannot fetch the part,
 * so the quorum is never met and the INSERT itself fails (UNKNOWN_STATUS_OF_INSERT): its own
 * outcome is the evidence.
 */
export const quorumInterserverCut = (proxies: readonly string[]) =>
  new ProxyDownFault('interserver_cut', proxies, proxies.join('+'), [], 'error');
