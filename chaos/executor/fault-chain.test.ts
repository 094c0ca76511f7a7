import { describe, expect, it } from 'vitest';
import type { InsertOutcome } from '../../sinks/index.ts';
import type { StartedFlowWorker } from '../../harness/flow/index.ts';
import { InsertGate } from '../../harness/flow/insert-gate.ts';
import { gateCatches, type GatePlan } from '../../harness/flow/runtime/insert-gates.ts';
import type { GatedAttempt } from '../../harness/flow/history/index.ts';
import type { FaultPlan, NemesisContext } from '../nemeses/index.ts';
import type { NemesisRecord } from './nemesis-record.ts';
import { faultChain, type ChainDeps } from './fault-chain.ts';

const ENDPOINT = '127.10.1.1:8123';

/**
 * A worker whose sink writes one INSERT (batch 7) and retries it while its outcome is unknown,
 * through real `InsertGate`s matched as the worker's gates match (`gateCatches`); `log` is the
 * order of what happened, on both sides.
 */
class ScriptedWorker {
  private readonly armed: { plan: GatePlan; gate: InsertGate; open: Map<string, () => void> }[] = [];
  private nextGate = 1;
  private dead = false;

  constructor(
    private readonly name: string,
    private readonly log: string[],
    /** The outcome of each attempt, in order; `ok` ends the INSERT. */
    private readonly outcomes: InsertOutcome[],
  ) {}

  async armGate(partition?: number, options: Omit<GatePlan, 'id' | 'partition'> = {}): Promise<InsertGate> {
    // A round trip to the worker, as the real one makes: whatever the sink was let do meanwhile, it does.
    await new Promise((resolve) => setImmediate(resolve));
    const open = new Map<string, () => void>();
    const gate = new InsertGate(
      this.nextGate++,
      (phase) => open.get(phase)?.(),
      async () => true,
    );
    this.armed.push({
      plan: { id: gate.id, ...(partition === undefined ? {} : { partition }), ...options },
      gate,
      open,
    });
    this.log.push(
      `${this.name} armed ${options.retryOf ? `for a later attempt than ${options.retryOf.attempt}` : 'for the next INSERT'}`,
    );
    return gate;
  }

  async runEpochs(): Promise<Record<number, never[]>> {
    for (const [i, outcome] of this.outcomes.entries()) {
      const attempt = {
        sink: 's',
        batch: 7,
        shard: null,
        endpoint: ENDPOINT,
        queryId: `${this.name}-a${i + 1}`,
        messageIds: [],
        attempt: i + 1,
      };
      const hit = this.armed.find((each) => gateCatches(each.plan, 0, attempt));
      const gated: GatedAttempt = { gate: hit?.gate.id ?? 0, partition: 0, ...attempt };
      if (hit !== undefined) {
        this.armed.splice(this.armed.indexOf(hit), 1);
        await new Promise<void>((resolve) => {
          hit.open.set('request', resolve);
          hit.gate.onHeld('request', gated, undefined);
        });
      }
      this.log.push(`${this.name} attempt ${i + 1} sent${hit ? '' : ' (no gate)'}`);
      if (hit !== undefined)
        await new Promise<void>((resolve) => {
          hit.open.set('outcome', resolve);
          hit.gate.onHeld('outcome', gated, outcome);
        });
      if (this.dead) return new Promise(() => undefined);
      this.log.push(`${this.name} saw attempt ${i + 1} ${outcome}`);
      if (outcome === 'ok') break;
    }
    return {};
  }

  async status() {
    return [{ partition: 0, state: 'running' }];
  }

  async drain(): Promise<null> {
    return null;
  }

  async kill(): Promise<void> {
    this.dead = true;
    this.log.push(`${this.name} killed`);
  }
}

/** A fault plan whose fault records its apply and heal, aimed at whatever the gate caught. */
const plan = (name: string, log: string[]): FaultPlan => ({
  type: 'reset_peer',
  heals: 'insert-ended',
  proofs: [],
  toString: () => name,
  aimAt: () =>
    ({
      effect: 'error',
      apply: async () => {
        log.push(`${name} applied`);
        return { type: 'reset_peer', description: name, targets: [] };
      },
      heal: async () => void log.push(`${name} healed`),
    }) as unknown as ReturnType<FaultPlan['aimAt']>,
});

function deps(log: string[], first: ScriptedWorker, restarted: ScriptedWorker): ChainDeps {
  const record = {
    start: () => 1,
    end: () => undefined,
    missed: (missed: FaultPlan, reason: string) => void log.push(`${missed.toString()} missed: ${reason}`),
  } as unknown as NemesisRecord;
  const nemesis = {
    cluster: { description: { shards: [{ replicas: [{ http: `http://${ENDPOINT}` }] }] } },
    log: { warn: () => undefined },
  } as unknown as NemesisContext;
  return {
    worker: first as unknown as StartedFlowWorker,
    nemesis,
    record,
    signal: new AbortController().signal,
    restart: async () => {
      log.push('restarted');
      return restarted as unknown as StartedFlowWorker;
    },
  };
}

describe('faultChain', () => {
  it("arms each link's gate for the retry before the sink sees the outcome, and meets a replay after a kill", async () => {
    const log: string[] = [];
    const first = new ScriptedWorker('w1', log, ['unknown', 'unknown', 'ok']);
    const second = new ScriptedWorker('w2', log, ['unknown', 'ok']);
    await faultChain(deps(log, first, second), {
      first: plan('f1', log),
      later: [
        { plan: plan('f2', log), meets: 'retry' },
        { plan: plan('f3', log), meets: 'replay' },
      ],
      epochs: 1,
      holdMs: 0,
    });
    expect(log).toEqual([
      'w1 armed for the next INSERT',
      'f1 applied',
      'w1 attempt 1 sent',
      'f1 healed',
      'w1 armed for a later attempt than 1',
      'w1 saw attempt 1 unknown',
      'f2 applied',
      'w1 attempt 2 sent',
      'f2 healed',
      // The sink never hears attempt 2's outcome: the replay is the next attempt of batch 7.
      'w1 killed',
      'restarted',
      'w2 armed for a later attempt than 0',
      'f3 applied',
      'w2 attempt 1 sent',
      'f3 healed',
      'w2 saw attempt 1 unknown',
      'w2 attempt 2 sent (no gate)',
      'w2 saw attempt 2 ok',
    ]);
  });

  it('ends a link whose retry never comes, and the ones after it, as missed', async () => {
    const log: string[] = [];
    const first = new ScriptedWorker('w1', log, ['ok']);
    await faultChain(deps(log, first, first), {
      first: plan('f1', log),
      later: [
        { plan: plan('f2', log), meets: 'retry' },
        { plan: plan('f3', log), meets: 'retry' },
      ],
      epochs: 1,
      holdMs: 0,
    });
    expect(log.slice(4)).toEqual([
      'w1 armed for a later attempt than 1',
      'w1 saw attempt 1 ok',
      'f2 missed: armed on the retry after link 1 of a chain: the writes ended without an INSERT',
      'f3 missed: armed on the retry after link 1 of a chain: the writes ended without an INSERT',
    ]);
  });
});
