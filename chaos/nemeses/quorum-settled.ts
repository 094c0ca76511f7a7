import type { ReplicaDescription } from '../../harness/cluster/index.ts';
import { describeError } from '../../harness/base/index.ts';
import type { Fault, FaultWindow, NemesisContext } from './fault.ts';
import { replicatedTables, withDirectClient } from './direct-client.ts';

/** How long a heal waits for a shard's replicas to fetch what a quorum INSERT left them. */
const SETTLE_LIMIT_MS = 30_000;

/**
 * A quorum fault whose heal ends once every replica of the aimed shard has fetched what the
 * faulted INSERT committed (SYSTEM SYNC REPLICA on each). Until then a sequential quorum refuses
 * every next INSERT at once (286, "Quorum for previous write has not been satisfied yet"), so
 * the next fault aimed at that shard would meet an INSERT that never waited for its quorum: on
 * a shard of three replicas the catch-up outlasted the next episode (seed 540530520, 1x3).
 */
class QuorumSettledFault implements Fault {
  readonly probe?: Fault['probe'];

  constructor(
    private readonly inner: Fault,
    private readonly shard: readonly ReplicaDescription[],
  ) {
    const probe = inner.probe;
    if (probe !== undefined) this.probe = (context, window, until) => probe.call(inner, context, window, until);
  }

  get type() {
    return this.inner.type;
  }

  get targets() {
    return this.inner.targets;
  }

  get effect() {
    return this.inner.effect;
  }

  apply(context: NemesisContext): Promise<FaultWindow> {
    return this.inner.apply(context);
  }

  async heal(context: NemesisContext, window: FaultWindow): Promise<void> {
    await this.inner.heal(context, window);
    await settleShard(context, this.shard);
  }

  toString(): string {
    return this.inner.toString();
  }
}

/** Best effort within its limit: a replica that cannot catch up is logged, and the next INSERT shows the rest. */
async function settleShard(context: NemesisContext, shard: readonly ReplicaDescription[]): Promise<void> {
  const started = Date.now();
  await Promise.all(
    shard.map((replica) =>
      withDirectClient(
        context,
        replica,
        async (client) => {
          for (const table of await replicatedTables(client, context.database))
            await client.command({ query: `SYSTEM SYNC REPLICA \`${context.database}\`.\`${table}\`` });
        },
        SETTLE_LIMIT_MS,
      ).catch((error: unknown) =>
        context.log.warn(
          { replica: replica.name, err: describeError(error) },
          'a replica did not catch up on the quorum INSERT after the heal',
        ),
      ),
    ),
  );
  context.log.debug({ shard: shard.map((replica) => replica.name), ms: Date.now() - started }, 'quorum settled');
}

export const quorumSettled = (fault: Fault, shard: readonly ReplicaDescription[]) =>
  new QuorumSettledFault(fault, shard);
