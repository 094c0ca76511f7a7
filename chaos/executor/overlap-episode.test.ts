import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ClusterDescription, StartedCluster } from '../../harness/cluster/index.ts';
import { eventsOfType, HistoryWriter, readHistory, type GatedAttempt } from '../../harness/flow/history/index.ts';
import type { StartedFlowWorker } from '../../harness/flow/index.ts';
import { InsertGate } from '../../harness/flow/insert-gate.ts';
import type { Fault, FaultPlan, FaultWindow, NemesisContext } from '../nemeses/index.ts';
import { NemesisRecord } from './nemesis-record.ts';
import { overlapEpisode } from './overlap-episode.ts';

const ATTEMPT: GatedAttempt = {
  gate: 0,
  partition: 0,
  batch: 1,
  shard: null,
  endpoint: '127.0.0.1:8123',
  queryId: 'q1',
  attempt: 1,
};
const description = {
  shards: [{ name: 's1', replicas: [{ name: 's1r1', http: 'http://127.0.0.1:8123', proxies: {} }] }],
} as unknown as ClusterDescription;

/** A worker whose next INSERT the gate catches at once, ends `unknown` when let go, and whose writes end when its outcome is heard. */
function fakeWorker() {
  let gate: InsertGate | undefined;
  let heard!: () => void;
  const written = new Promise<void>((resolve) => (heard = resolve));
  const worker = {
    armGate: async () => {
      gate = new InsertGate(
        0,
        (phase) => {
          if (phase === 'request') setTimeout(() => gate?.onHeld('outcome', ATTEMPT, 'unknown'), 5);
          else heard();
        },
        async () => true,
      );
      setTimeout(() => gate?.onHeld('request', ATTEMPT, undefined), 5);
      return gate;
    },
    runEpochs: () => written,
    status: async () => [],
    drain: async () => undefined,
  };
  return worker as unknown as StartedFlowWorker;
}

/** A fault that logs what is done to it, and fails where it is told to. */
function fakePlan(name: string, log: string[], fails: { apply?: boolean; heal?: boolean } = {}): FaultPlan {
  const fault: Fault = {
    type: 'latency',
    targets: [name],
    effect: 'slow',
    apply: async () => {
      log.push(`apply ${name}`);
      if (fails.apply) throw new Error(`${name} could not be applied`);
      return { type: 'latency', description: name, targets: [name], appliedAt: Date.now() } as FaultWindow;
    },
    heal: async () => {
      log.push(`heal ${name}`);
      if (fails.heal) throw new Error(`${name} could not be healed`);
    },
    toString: () => name,
  };
  return { type: 'latency', heals: 'insert-ended', proofs: [], aimAt: () => fault, toString: () => name };
}

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'overlap-episode-'));
  const record = new NemesisRecord(HistoryWriter.open(dir, 'nemesis'));
  const nemesis = {
    cluster: { description } as unknown as StartedCluster,
    log: pino({ level: 'silent' }),
  } as unknown as NemesisContext;
  const stop = new AbortController();
  const deps = { worker: fakeWorker(), nemesis, record, signal: stop.signal };
  const history = () => {
    record.close();
    return readHistory(dir).events;
  };
  return { deps, stop, history };
}

describe('overlapEpisode', () => {
  it('applies both in order before the INSERT goes, heals the drawn one first, records each naming the other', async () => {
    const { deps, history } = setUp();
    const log: string[] = [];
    await overlapEpisode(deps, {
      plans: [fakePlan('a', log), fakePlan('b', log)],
      healFirst: 1,
      epochs: 1,
      holdMs: 0,
    });
    expect(log).toEqual(['apply a', 'apply b', 'heal b', 'heal a']);
    const events = history();
    expect(eventsOfType(events, 'fault-start').map((start) => [start.window, start.overlaps])).toEqual([
      [1, 2],
      [2, 1],
    ]);
    expect(eventsOfType(events, 'fault-end').map((end) => end.window)).toEqual([2, 1]);
  });

  it('heals the first when the second cannot be applied, and says why', async () => {
    const { deps } = setUp();
    const log: string[] = [];
    const episode = overlapEpisode(deps, {
      plans: [fakePlan('a', log), fakePlan('b', log, { apply: true })],
      healFirst: 0,
      epochs: 1,
      holdMs: 0,
    });
    await expect(episode).rejects.toThrow('b could not be applied');
    expect(log).toEqual(['apply a', 'apply b', 'heal a']);
  });

  it('heals both when the first heal fails', async () => {
    const { deps } = setUp();
    const log: string[] = [];
    const episode = overlapEpisode(deps, {
      plans: [fakePlan('a', log, { heal: true }), fakePlan('b', log)],
      healFirst: 0,
      epochs: 1,
      holdMs: 0,
    });
    await expect(episode).rejects.toThrow('a could not be healed');
    expect(log.filter((line) => line.startsWith('heal')).sort()).toEqual(['heal a', 'heal a', 'heal b']);
  });

  it('heals both when the run is stopped while they hold', async () => {
    const { deps, stop } = setUp();
    const log: string[] = [];
    const held = (name: string): FaultPlan => ({ ...fakePlan(name, log), heals: 'after-hold' });
    const episode = overlapEpisode(deps, { plans: [held('a'), held('b')], healFirst: 0, epochs: 1, holdMs: 60_000 });
    setTimeout(() => stop.abort(new Error('interrupted')), 50);
    await expect(episode).rejects.toThrow('interrupted');
    expect(log.filter((line) => line.startsWith('heal')).sort()).toEqual(['heal a', 'heal b']);
  });
});
