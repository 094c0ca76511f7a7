import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClusterDescription,
  ExternalCluster,
  harnessClient,
  queryRows,
  readClusterFile,
} from '../harness/cluster/index.ts';
import { readClusterState, stateProcesses } from '../harness/cluster/cluster-state.ts';
import { processState } from '../harness/cluster/process/local-process.ts';
import { runTs } from '../harness/cluster/testing/run-cli.ts';
import { componentLogger, PROJECT_ROOT } from '../harness/base/index.ts';
import { describedProxies, type FaultWindow, RunUndo, UndoJournal } from './nemeses/index.ts';
import { FaultProxyClient } from './nemeses/fault-proxy-client.ts';
import { keeperPause } from './nemeses/process-fault.ts';

// A user's cluster, attached through a file with pause / resume / kill / start templates and no
// `status` template (the README allows that), must be left exactly as it was found however the
// run ends: Ctrl-C, SIGTERM, or SIGKILL followed by `--reap`. Each run is interrupted while one of
// its faults is in force on the cluster, seen from outside (the Toxiproxy API, the processes, the
// tables), never by the runner's own word.

const stateDir = mkdtempSync(join(tmpdir(), 'left-as-found-state-'));
const work = mkdtempSync(join(tmpdir(), 'left-as-found-work-'));
const env = { CHAOS_STATE_DIR: stateDir };
/** A database of the cluster's owner, named like the harness's own: it must survive every run. */
const USER_DATABASE = 'chaos_keep_me';
let description: ClusterDescription;
let file: string;

beforeAll(async () => {
  const up = await runTs('harness/cli/cluster-cli.ts', ['up', '--shards', '2', '--replicas', '2'], env);
  expect(up.code, up.stderr).toBe(0);
  description = JSON.parse(up.stdout.trim()) as ClusterDescription;
  const cli = `CHAOS_STATE_DIR=${stateDir} ${process.execPath} --import tsx ${resolve(PROJECT_ROOT, 'harness/cli/cluster-cli.ts')}`;
  const commands = Object.fromEntries(
    ['kill', 'pause', 'resume', 'start'].map((action) => [
      action,
      `cd ${PROJECT_ROOT} && ${cli} member ${action} "$CHAOS_MEMBER" --dir ${description.dir}`,
    ]),
  );
  file = join(work, 'no-status.json');
  writeFileSync(file, JSON.stringify({ ...description, process_commands: commands }));
  const owner = harnessClient(description.shards[0]!.replicas[0]!.direct_http);
  await owner.command({ query: `CREATE DATABASE ${USER_DATABASE}` });
  await owner.command({ query: `CREATE TABLE ${USER_DATABASE}.notes (id UInt32) ENGINE = MergeTree ORDER BY id` });
  await owner.command({ query: `INSERT INTO ${USER_DATABASE}.notes VALUES (1)` });
  await owner.close();
}, 120_000);

afterAll(async () => {
  await runTs('harness/cli/cluster-cli.ts', ['down', '--all'], env);
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

const replicas = () => description.shards.flatMap((shard) => shard.replicas);

/** Every member's process state, read from the cluster's own state file (the runner's word is not used). */
function memberStates(): Record<string, string> {
  return Object.fromEntries(
    stateProcesses(readClusterState(description.dir)).map((record) => [record.name, processState(record)]),
  );
}

/** Each named proxy that is disabled or carries a toxic, as the Toxiproxy API shows it. */
async function faultedProxies(): Promise<string[]> {
  const proxies = await new FaultProxyClient(description.toxiproxy ?? '').proxies();
  return describedProxies(description).flatMap((name) => {
    const proxy = proxies[name];
    if (proxy === undefined) return [`${name}: missing`];
    if (!proxy.enabled) return [`${name}: disabled`];
    return proxy.toxics.map((toxic) => `${name}: toxic ${toxic.name}`);
  });
}

/** A run table whose settings or constraints a server-error fault changed, or that it detached, on any replica. */
async function alteredTables(): Promise<string[]> {
  return (
    await Promise.all(
      replicas().map(async (replica) => {
        const client = harnessClient(replica.direct_http, { timeoutMs: 2000 });
        try {
          const rows = await queryRows<{ what: string }>(
            client,
            `SELECT concat(database, '.', name, ' altered') AS what FROM system.tables
               WHERE database LIKE 'chaos\\_%' AND database != '${USER_DATABASE}' AND match(create_table_query, 'parts_to_throw_insert|min_free_disk_bytes_to_perform_insert|chaos_refuses_every_row')
             UNION ALL
             SELECT concat(database, '.', table, ' detached') AS what FROM system.detached_tables WHERE database LIKE 'chaos\\_%' AND database != '${USER_DATABASE}'`,
          );
          return rows.map((row) => `${replica.name}: ${row.what}`);
        } catch {
          return [];
        } finally {
          await client.close();
        }
      }),
    )
  ).flat();
}

/**
 * The faults in force, seen from outside the runner: the first kind found, so a stopped member
 * is reported at once (asking a paused replica for its tables would wait out the timeout, and the
 * fault could heal meanwhile); empty only when none of the three kinds is in force.
 */
async function faultsInForce(): Promise<string[]> {
  const stopped = Object.entries(memberStates())
    .filter(([, state]) => state !== 'running')
    .map(([name, state]) => `${name}: ${state}`);
  if (stopped.length > 0) return stopped;
  const proxies = await faultedProxies();
  return proxies.length > 0 ? proxies : alteredTables();
}

async function databases(): Promise<string[]> {
  const names = await Promise.all(
    replicas().map(async (replica) => {
      const client = harnessClient(replica.direct_http);
      try {
        return (
          await queryRows<{ name: string }>(client, "SELECT name FROM system.databases WHERE name LIKE 'chaos%'")
        ).map((row) => `${replica.name}: ${row.name}`);
      } finally {
        await client.close();
      }
    }),
  );
  return names.flat();
}

/** The cluster as it was before any run: every member running, no proxy faulted, only the owner's database. */
async function expectLeftAsFound(): Promise<void> {
  expect(await faultsInForce()).toEqual([]);
  expect(await databases()).toEqual([`${replicas()[0]!.name}: ${USER_DATABASE}`]);
}

interface Interrupted {
  readonly inForce: readonly string[];
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stopMs: number;
  readonly stderr: string;
}

/**
 * The chaos job on the file, in its own process group, hit by `signal` while a fault of `scenario`
 * is in force (`twice`: a second one 100 ms later, as an impatient user's second Ctrl-C).
 */
async function interruptMidEpisode(scenario: string, signal: NodeJS.Signals, twice = false): Promise<Interrupted> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      resolve(PROJECT_ROOT, 'chaos/cli.ts'),
      ...['--backend', 'external', '--cluster', file, '--profile', 'full', '--seed', '3'],
      ...['--sink', 'AtLeastOnceClickHouseSink', '--scenario', scenario, '--report-dir', join(work, 'reports')],
    ],
    { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, exitSignal) => done({ code, signal: exitSignal })),
  );
  const deadline = Date.now() + 180_000;
  let inForce: string[] = [];
  while (inForce.length === 0) {
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`no fault of ${scenario} was seen in force within 180 s\n${stderr}`);
    }
    await delay(20);
    inForce = await faultsInForce();
  }
  const sent = Date.now();
  const target = signal === 'SIGTERM' ? child.pid! : -child.pid!;
  process.kill(target, signal);
  if (twice) {
    // The second signal must meet the unwind: it goes the moment the runner says it began. A fixed
    // 100 ms missed it once the cluster's data moved to memory and the unwind got that fast.
    while (!stderr.includes(`${signal} received`) && child.exitCode === null) await delay(1);
    process.kill(target, signal);
  }
  const exit = await exited;
  return { inForce, ...exit, stopMs: Date.now() - sent, stderr };
}

const reap = () => runTs('chaos/cli.ts', ['--backend', 'external', '--cluster', file, '--reap'], env, 120_000);

describe('an attached cluster is left as found', { timeout: 300_000 }, () => {
  it('a Keeper member the harness paused is resumed by the heal, though the file has no status template', async () => {
    const cluster = new ExternalCluster(readClusterFile(file), componentLogger('left-as-found-test'));
    const journal = new UndoJournal(join(work, 'pause-journal.jsonl'), cluster);
    const context = {
      cluster,
      proxies: journal.deps.proxies,
      undo: new RunUndo(journal, 'pause-test'),
      log: componentLogger('left-as-found-test'),
      database: 'none',
    };
    // ZooKeeper paused: left so, every replicated table of the owner's cluster would go read-only.
    const fault = keeperPause('k1');
    const window: FaultWindow = await fault.apply(context);
    expect(memberStates().k1).toBe('paused');
    expect(await cluster.memberState('k1')).toBe('unknown');
    await fault.heal(context, window);
    expect(memberStates().k1).toBe('running');
    journal.close();
  });

  it.each([
    { signal: 'SIGINT' as const, scenario: 'replica-faults', code: 130 },
    { signal: 'SIGTERM' as const, scenario: 'server-errors', code: 143 },
  ])(
    '$signal mid-episode ($scenario): the fault in force is undone and the run’s database dropped before the runner exits',
    async ({ signal, scenario, code }) => {
      const run = await interruptMidEpisode(scenario, signal);
      expect(run.code, run.stderr).toBe(code);
      expect(run.stderr).toMatch(new RegExp(`${signal} received`));
      // The 8 s grace: the unwind (workers, undo, database) fits in it.
      expect(run.stopMs, run.stderr).toBeLessThan(8_000);
      expect(run.stderr).not.toMatch(/stopping now/);
      await expectLeftAsFound();
      const again = await reap();
      expect(again.stdout).toMatch(/^nothing to undo/);
      console.info(`${signal}: ${run.inForce.join(', ')} in force; the runner stopped in ${run.stopMs} ms`);
    },
  );

  it('a second SIGINT mid-unwind (keeper-faults): the forced stop still undoes what the run did, within its bound', async () => {
    const run = await interruptMidEpisode('keeper-faults', 'SIGINT', true);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toMatch(/stopping now/);
    // The forced stop's undo is bounded by 5 s.
    expect(run.stopMs, run.stderr).toBeLessThan(7_000);
    await expectLeftAsFound();
    expect((await reap()).stdout).toMatch(/^nothing to undo/);
    console.info(`SIGINT twice: ${run.inForce.join(', ')} in force; the runner stopped in ${run.stopMs} ms`);
  });

  it('SIGKILL mid-episode: `--reap` undoes what the killed runner left, says what, and a second reap finds nothing', async () => {
    const run = await interruptMidEpisode('network-degradation', 'SIGKILL');
    expect(run.signal).toBe('SIGKILL');
    const reaped = await reap();
    expect(reaped.code, reaped.stderr).toBe(0);
    const lines = reaped.stdout.trim().split('\n');
    expect(
      lines.every((line) => line.startsWith('undone: ')),
      reaped.stdout,
    ).toBe(true);
    expect(
      lines.some((line) => /^undone: dropped database chaos_2/.test(line)),
      reaped.stdout,
    ).toBe(true);
    await expectLeftAsFound();
    const again = await reap();
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^nothing to undo/);
    console.info(`SIGKILL: ${run.inForce.join(', ')} in force; reaped:\n${reaped.stdout}`);
  });
});
