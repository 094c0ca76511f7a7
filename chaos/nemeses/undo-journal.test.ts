import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { processStartTime } from '../../harness/cluster/process/local-process.ts';
import { componentLogger } from '../../harness/base/index.ts';
import { startToxiproxyServer } from '../toxiproxy/index.ts';
import { Upstream } from '../toxiproxy/test-support.ts';
import type { NemesisContext } from './fault.ts';
import { FaultProxyClient, refusedByFaultProxy } from './fault-proxy-client.ts';
import { replicaPause } from './process-fault.ts';
import { proxyDown } from './proxy-fault.ts';
import { RunUndo } from './run-undo.ts';
import { FakeCluster } from './test-support.ts';
import { latency } from './toxic-fault.ts';
import { describeOutcome, independentRuns, UndoJournal, type JournalOwner } from './undo-journal.ts';
import type { UndoAction } from './undo-actions.ts';

// The undo journal over in-process fakes: our own fault proxy server (the Toxiproxy API) and an
// in-memory cluster whose probe cannot tell a paused member from a dead one.

const work = mkdtempSync(join(tmpdir(), 'undo-journal-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let files = 0;

/** A process that is gone: no pid reaches 2^22 + 7 (Linux's largest pid_max is 2^22). */
const GONE: JournalOwner = { pid: 2 ** 22 + 7, startTime: 'gone' };

async function setup(options: { owner?: JournalOwner; probe?: 'dead' | 'unknown' } = {}) {
  const upstream = await Upstream.start({ echo: true });
  const server = await startToxiproxyServer({
    port: 0,
    config: ['a', 'b'].map((name) => ({ name, listen: '127.0.0.1:0', upstream: upstream.address })),
  });
  const proxies = new FaultProxyClient(server.url);
  const cluster = new FakeCluster(['k1'], { toxiproxy: server.url, probe: options.probe ?? 'dead' });
  const file = join(work, `journal-${(files += 1)}.jsonl`);
  const journal = new UndoJournal(file, cluster, options.owner, proxies);
  const undo = new RunUndo(journal, 'run-0');
  const context: NemesisContext = { cluster, proxies, undo, log: componentLogger('undo-test'), database: 'chaos' };
  const clean = async () => {
    const listed = await proxies.proxies();
    return Object.values(listed).every((proxy) => proxy.enabled && proxy.toxics.length === 0);
  };
  return {
    proxies,
    cluster,
    file,
    journal,
    undo,
    context,
    clean,
    [Symbol.asyncDispose]: async () => {
      await server[Symbol.asyncDispose]();
      await upstream[Symbol.asyncDispose]();
    },
  };
}

describe('a fault undoes exactly what it did', () => {
  it('a pause is healed by resume even when the probe reads the paused member as dead', async () => {
    await using t = await setup({ probe: 'dead' });
    const fault = replicaPause('k1');
    const window = await fault.apply(t.context);
    await fault.heal(t.context, window);
    expect(t.cluster.calls).toEqual(['pause k1', 'resume k1']);
    expect(t.cluster.states.get('k1')).toBe('running');
  });

  it('an apply that fails half-way undoes what it already did', async () => {
    await using t = await setup();
    await expect(latency(['a', 'missing'], 300).apply(t.context)).rejects.toThrow(/answered 404/);
    expect((await t.proxies.proxy('a')).toxics).toEqual([]);
    expect(t.journal.entries()).toEqual([]);
  });

  it('an apply whose branches run side by side waits for the ones still under way before it undoes', async () => {
    await using t = await setup();
    const own = t.undo.fault();
    const slow = { name: 'slow_add', type: 'latency', stream: 'downstream' as const, toxicity: 1, attributes: {} };
    await expect(
      own.applying(() =>
        Promise.all([
          own.do({ kind: 'toxic', proxy: 'a', toxic: 'slow_add' }, async () => {
            await delay(150);
            await t.proxies.addToxic('a', slow);
          }),
          own.do(
            { kind: 'toxic', proxy: 'missing', toxic: 'slow_add' },
            () => t.proxies.addToxic('missing', slow),
            refusedByFaultProxy,
          ),
        ]),
      ),
    ).rejects.toThrow(/answered 404/);
    // Long enough for a branch the undo did not wait for to land after it.
    await delay(300);
    expect(await t.clean()).toBe(true);
    expect(t.journal.entries()).toEqual([]);
  });

  it('a heal that gets a 404 fails, and what it could not undo stays in the journal', async () => {
    await using t = await setup();
    const fault = latency(['a'], 300);
    const window = await fault.apply(t.context);
    await fetch(`${t.proxies.url}/proxies/a`, { method: 'DELETE' });
    await expect(fault.heal(t.context, window)).rejects.toThrow(/answered 404 to reading proxy a/);
    expect(t.journal.entries().map((entry) => entry.action.kind)).toEqual(['toxic']);
  });
});

describe('the undo journal', () => {
  it('records each action before it is taken, so a killed runner’s leftovers are undone by a later reap, once', async () => {
    await using t = await setup({ owner: GONE });
    await latency(['a'], 300).apply(t.context);
    await proxyDown(['b']).apply(t.context);
    await replicaPause('k1').apply(t.context);
    expect(await t.clean()).toBe(false);

    const next = new UndoJournal(t.file, t.cluster, undefined, t.proxies);
    const reaped = await next.reapLeftovers();
    expect(reaped.map(describeOutcome)).toEqual([
      `undone: resumed member k1 (member k1 paused, pid ${GONE.pid})`,
      `undone: enabled proxy b (proxy b disabled, pid ${GONE.pid})`,
      expect.stringMatching(/^undone: removed toxic chaos_latency_downstream_[0-9a-f]{6} from proxy a/),
    ]);
    expect(await t.clean()).toBe(true);
    expect(t.cluster.states.get('k1')).toBe('running');
    expect(await next.reapLeftovers()).toEqual([]);
  });

  it('leaves a live runner’s entries to it', async () => {
    const parent = { pid: process.ppid, startTime: processStartTime(process.ppid) ?? '' };
    await using t = await setup({ owner: parent });
    await latency(['a'], 300).apply(t.context);
    expect(await new UndoJournal(t.file, t.cluster, undefined, t.proxies).reapLeftovers()).toEqual([]);
    expect(await t.clean()).toBe(false);
    await t.undo.stop('the test ended');
    expect(await t.clean()).toBe(true);
  });

  it('a stopped run takes no more actions', async () => {
    await using t = await setup();
    await t.undo.stop('interrupted by SIGINT');
    await expect(latency(['a'], 300).apply(t.context)).rejects.toThrow(
      /toxic chaos_latency_downstream_\w+ on proxy a was not done: the run was stopped \(interrupted by SIGINT\)/,
    );
    expect(await t.clean()).toBe(true);
    expect(t.journal.entries()).toEqual([]);
  });

  it('a stop waits for an action under way, then undoes it', async () => {
    await using t = await setup();
    const acting = t.undo.do({ kind: 'toxic', proxy: 'a', toxic: 'slow_add' }, async () => {
      await delay(200);
      await t.proxies.addToxic('a', {
        name: 'slow_add',
        type: 'latency',
        stream: 'downstream',
        toxicity: 1,
        attributes: { latency: 10 },
      });
    });
    await t.undo.stop('interrupted');
    await acting;
    expect(await t.clean()).toBe(true);
    expect(t.journal.entries()).toEqual([]);
  });

  it('the forced stop waits for a pause still being taken before it resumes, so the member is not left paused', async () => {
    await using t = await setup();
    const pause = t.cluster.pause.bind(t.cluster);
    t.cluster.pause = async (name) => {
      await delay(300);
      await pause(name);
    };
    const pausing = replicaPause('k1').apply(t.context);
    await delay(50);
    const outcomes = await t.journal.undoOwn();
    await pausing;
    expect(outcomes.map((outcome) => outcome.error)).toEqual([undefined]);
    expect(t.cluster.states.get('k1')).toBe('running');
    expect(t.journal.entries()).toEqual([]);
  });

  it('an action still under way when the forced stop gives up waiting stays open in the journal, for the next start', async () => {
    await using t = await setup();
    const pause = t.cluster.pause.bind(t.cluster);
    t.cluster.pause = async (name) => {
      await delay(400);
      await pause(name);
    };
    const pausing = replicaPause('k1').apply(t.context);
    await delay(50);
    const [outcome] = await t.journal.undoOwn(() => true, 100);
    expect(outcome?.error).toMatch(/still being done/);
    await pausing;
    expect(t.cluster.states.get('k1')).toBe('paused');
    expect(t.journal.entries().map((entry) => entry.action.kind)).toEqual(['member-paused']);
    await t.journal.undoOwn();
    expect(t.cluster.states.get('k1')).toBe('running');
  });

  it('an undo whose command failed once is tried once more', async () => {
    await using t = await setup();
    await replicaPause('k1').apply(t.context);
    const resume = t.cluster.resume.bind(t.cluster);
    let cut = true;
    t.cluster.resume = async (name) => {
      if (!cut) return resume(name);
      cut = false;
      throw new Error(`resume ${name}: connection reset`);
    };
    await t.undo.stop('interrupted by SIGINT');
    expect(t.cluster.states.get('k1')).toBe('running');
    expect(t.journal.entries()).toEqual([]);
  });

  it('an action that certainly did nothing is closed unused: a database name already taken is never dropped', async () => {
    await using t = await setup();
    const taken = Object.assign(new Error('Database theirs already exists'), { code: '82' });
    await expect(
      t.undo.do(
        { kind: 'database', replica: 's1r1', database: 'theirs' },
        () => Promise.reject(taken),
        (error) => (error as { code?: string }).code === '82',
      ),
    ).rejects.toThrow(/already exists/);
    expect(t.journal.entries()).toEqual([]);
    await t.undo.stop('the run ended');
  });

  it('a line cut by a crash mid-write is skipped, and the next line starts on its own', async () => {
    await using t = await setup({ owner: GONE });
    await proxyDown(['b']).apply(t.context);
    appendFileSync(t.file, '{"op":"do","id":"cut');
    const next = new UndoJournal(t.file, t.cluster, undefined, t.proxies);
    await latency(['a'], 300).apply({ ...t.context, undo: new RunUndo(next, 'run-1') });
    expect(readFileSync(t.file, 'utf8').split('\n').at(-3)).toBe('{"op":"do","id":"cut');
    expect(t.journal.entries().map((entry) => entry.action.kind)).toEqual(['proxy-disabled', 'toxic']);
    expect((await next.reapLeftovers()).map((outcome) => outcome.entry.action.kind)).toEqual(['proxy-disabled']);
  });
});

describe('the order of undos', () => {
  const database = (replica: string): { action: UndoAction } => ({
    action: { kind: 'database', replica, database: 'chaos' },
  });
  const toxic = (proxy: string): { action: UndoAction } => ({ action: { kind: 'toxic', proxy, toxic: 't' } });
  const paused = (member: string): { action: UndoAction } => ({ action: { kind: 'member-paused', member } });

  it('drops the databases of consecutive entries together, and keeps every other entry alone and in its place', () => {
    const [t1, d1, d2, p1, d3, t2, t3] = [
      toxic('a'),
      database('r1'),
      database('r2'),
      paused('k1'),
      database('r3'),
      toxic('b'),
      toxic('c'),
    ];
    expect(independentRuns([t1, d1, d2, p1, d3, t2, t3])).toEqual([[t1], [d1, d2], [p1], [d3], [t2], [t3]]);
  });
});
