import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { componentLogger, describeError, HarnessError } from '../../harness/base/index.ts';
import { startToxiproxyServer } from '../toxiproxy/index.ts';
import { Upstream } from '../toxiproxy/test-support.ts';
import { FaultProxyClient } from '../nemeses/fault-proxy-client.ts';
import { RunUndo, UndoJournal } from '../nemeses/index.ts';
import { FakeCluster } from '../nemeses/test-support.ts';
import { latency } from '../nemeses/toxic-fault.ts';
import { abortable } from './background-write.ts';
import { RunInFlight } from './run-in-flight.ts';

// fast-check's time backstop abandons the predicate in flight without cancelling it. A run it
// abandons must be stopped, and what it did undone, before the caller starts anything else.

const work = mkdtempSync(join(tmpdir(), 'run-in-flight-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const OUTLIVED = new HarnessError('CHAOS_RUN_OUTLIVED_BUDGET', 'a run outlived every budget');

async function faultProxy() {
  const upstream = await Upstream.start({ echo: true });
  const server = await startToxiproxyServer({
    port: 0,
    config: [{ name: 'a', listen: '127.0.0.1:0', upstream: upstream.address }],
  });
  const proxies = new FaultProxyClient(server.url);
  const cluster = new FakeCluster([], { toxiproxy: server.url });
  const journal = new UndoJournal(join(work, `${Math.random()}.jsonl`), cluster, undefined, proxies);
  return {
    proxies,
    journal,
    context: { cluster, proxies, log: componentLogger('run-in-flight-test'), database: 'chaos' },
    [Symbol.asyncDispose]: async () => {
      await server[Symbol.asyncDispose]();
      await upstream[Symbol.asyncDispose]();
    },
  };
}

/** A run as the executor shapes one: its body raced with the stop signal, everything it did undone in `finally`. */
function run(t: Awaited<ReturnType<typeof faultProxy>>, signal: AbortSignal, hangs: boolean, ended: string[]) {
  return async (): Promise<boolean> => {
    const undo = new RunUndo(t.journal, 'run-0');
    const body = async () => {
      await latency(['a'], 300).apply({ ...t.context, undo });
      // A wait past every budget: the run is still going when the backstop fires.
      if (hangs) await new Promise(() => undefined);
    };
    try {
      await abortable(body(), signal);
      ended.push('ran');
    } catch (error) {
      ended.push(describeError(signal.aborted ? signal.reason : error));
    } finally {
      await undo.stop('the run ended');
    }
    return true;
  };
}

describe('RunInFlight', () => {
  it('stops a run the backstop abandoned, with its fault undone, before the caller goes on', async () => {
    await using t = await faultProxy();
    const inFlight = new RunInFlight();
    const ended: string[] = [];
    const property = fc.asyncProperty(fc.constant(0), () => inFlight.track(run(t, inFlight.signal, true, ended)()));
    const details = await fc.check(property, {
      numRuns: 1,
      interruptAfterTimeLimit: 300,
      markInterruptAsFailure: true,
    });
    expect(details.interrupted).toBe(true);
    expect(await inFlight.stopAbandoned(OUTLIVED)).toBe(true);
    expect(ended).toEqual(['a run outlived every budget [CHAOS_RUN_OUTLIVED_BUDGET]']);
    expect((await t.proxies.proxy('a')).toxics).toEqual([]);
    expect(t.journal.entries()).toEqual([]);
  });

  it('leaves a check that ended by itself alone', async () => {
    await using t = await faultProxy();
    const inFlight = new RunInFlight();
    const ended: string[] = [];
    const property = fc.asyncProperty(fc.constant(0), () => inFlight.track(run(t, inFlight.signal, false, ended)()));
    const details = await fc.check(property, { numRuns: 2, interruptAfterTimeLimit: 10_000 });
    expect(details.interrupted).toBe(false);
    expect(await inFlight.stopAbandoned(OUTLIVED)).toBe(false);
    expect(inFlight.signal.aborted).toBe(false);
    expect(ended).toEqual(['ran', 'ran']);
  });

  it('an interrupt reaches the run in flight through the same signal', async () => {
    const interrupt = new AbortController();
    const inFlight = new RunInFlight(interrupt.signal);
    interrupt.abort(new Error('interrupted by SIGINT'));
    expect(inFlight.signal.aborted).toBe(true);
    expect((inFlight.signal.reason as Error).message).toBe('interrupted by SIGINT');
  });
});
