import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClusterDescription,
  harnessClient,
  queryRows,
  type ReplicaDescription,
} from '../harness/cluster/index.ts';
import { STATE_FILE, type ClusterState } from '../harness/cluster/cluster-state.ts';
import { runTs } from '../harness/cluster/testing/run-cli.ts';

// Attaching holds the cluster file against the cluster before anything runs. A cluster started
// elsewhere (`npm run cluster -- up`, another process) and files derived from its description,
// each wrong in one way: every one is refused with exit 2 and one line naming what differs,
// nothing is created, and the file as printed still attaches.

const stateDir = mkdtempSync(join(tmpdir(), 'external-attach-state-'));
const work = mkdtempSync(join(tmpdir(), 'external-attach-work-'));
const env = { CHAOS_STATE_DIR: stateDir };
let description: ClusterDescription;

beforeAll(async () => {
  const up = await runTs('harness/cli/cluster-cli.ts', ['up', '--shards', '2', '--replicas', '2'], env);
  expect(up.code, up.stderr).toBe(0);
  description = JSON.parse(up.stdout.trim()) as ClusterDescription;
}, 120_000);

afterAll(async () => {
  await runTs('harness/cli/cluster-cli.ts', ['down', '--all'], env);
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

function clusterFile(content: object): string {
  const file = join(work, `cluster-${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

/** The description with each replica changed by `patch` (given the replica, and any replica by name). */
function withReplicas(
  patch: (replica: ReplicaDescription, byName: (name: string) => ReplicaDescription) => Partial<ReplicaDescription>,
): ClusterDescription {
  const all = description.shards.flatMap((shard) => shard.replicas);
  const byName = (name: string) => all.find((each) => each.name === name) as ReplicaDescription;
  return {
    ...description,
    shards: description.shards.map((shard) => ({
      ...shard,
      replicas: shard.replicas.map((replica) => ({ ...replica, ...patch(replica, byName) })),
    })),
  };
}

const swapped = (name: string) => ({ s1r1: 's1r2', s1r2: 's1r1' })[name];

/** The chaos job on `file`, with a selection that runs nothing once attached (no process_commands). */
const attach = (file: string, reportDir = join(work, 'reports')) =>
  runTs(
    'chaos/cli.ts',
    [
      '--backend',
      'external',
      '--cluster',
      file,
      '--seed',
      '11',
      '--sink',
      'AtLeastOnceClickHouseSink',
      '--scenario',
      'replica-faults',
      '--report-dir',
      reportDir,
    ],
    env,
    180_000,
  );

async function chaosDatabases(): Promise<string[]> {
  const client = harnessClient(description.shards[0]?.replicas[0]?.direct_http ?? '');
  try {
    return (
      await queryRows<{ name: string }>(client, "SELECT name FROM system.databases WHERE name LIKE 'chaos%'")
    ).map((row) => row.name);
  } finally {
    await client.close();
  }
}

async function expectRefused(file: string, line: RegExp): Promise<void> {
  const run = await attach(file);
  expect(run.code, run.stderr).toBe(2);
  const last = run.stderr.trim().split('\n').at(-1) ?? '';
  expect(last).toMatch(line);
  expect(last).toMatch(/ \[EXTERNAL_[A-Z_]+\]$/);
  expect(await chaosDatabases()).toEqual([]);
}

describe('attaching to a cluster through its file', { timeout: 300_000 }, () => {
  it('attaches the file `cluster up` printed', async () => {
    const run = await attach(clusterFile(description));
    expect(run.stderr).toMatch(/cluster attached in/);
    expect(run.stderr).toMatch(/replica-faults: inconclusive \(0 runs/);
    // Nothing violated, something not verified (the scenario the file cannot run): exit 3.
    expect(run.code).toBe(3);
    // The embedded engine shows neither link: the report says they were not checked.
    const summary = JSON.parse(readFileSync(join(work, 'reports', 'latest', 'summary.json'), 'utf8')) as {
      backend_limits: string[];
    };
    expect(summary.backend_limits).toEqual(
      expect.arrayContaining([
        'the Keeper links of s1r1, s1r2, s2r1, s2r2 were not checked against proxies.keepers: the server has no system.zookeeper_connection',
        expect.stringMatching(/^the replication links of s1r1, s1r2, s2r1, s2r2 were not checked/),
      ]),
    );
  });

  it.each<[string, () => object, RegExp]>([
    [
      'a cluster name the servers do not know',
      () => ({ ...description, cluster: 'prod' }),
      /cluster prod is not in system.clusters on s1r1 \(remote_servers\)/,
    ],
    [
      'shards whose names are swapped',
      () => ({
        ...description,
        shards: description.shards.map((shard, i) => ({ ...shard, name: i === 0 ? 's2' : 's1' })),
      }),
      /s1r1 \(shard s2 in the file\) has the macros shard=s1, replica=s1r1/,
    ],
    [
      "two replicas' http swapped",
      () =>
        withReplicas((replica, byName) =>
          swapped(replica.name) ? { http: byName(swapped(replica.name) ?? '').http } : {},
        ),
      /s1r1's `http` answers as replica s1r2 \(getMacro\('replica'\)\) and its `direct_http` as s1r1/,
    ],
    [
      "a client proxy name pointing at another replica's link",
      () =>
        withReplicas((replica, byName) =>
          swapped(replica.name)
            ? { proxies: { ...replica.proxies, client: byName(swapped(replica.name) ?? '').proxies.client } }
            : {},
        ),
      /proxy s1r2_client \(proxies.client of s1r1\) listens on 127\.10\.1\.2:\d+, not at s1r1's `http` \(127\.10\.1\.1:\d+\)/,
    ],
    [
      'a login in a URL',
      () =>
        withReplicas((replica) =>
          replica.name === 's1r1'
            ? { direct_http: replica.direct_http.replace('http://', 'http://default:s3cr3t@') }
            : {},
        ),
      /replica s1r1: `direct_http` must not carry a login \(user:password@host\)/,
    ],
  ])('refuses %s, with exit 2 and one line', async (_, content, line) => {
    await expectRefused(clusterFile(content()), line);
  });

  it('refuses a member name holding shell text', async () => {
    const file = clusterFile(withReplicas((replica) => (replica.name === 's1r1' ? { name: 's1r1$(touch x)' } : {})));
    await expectRefused(file, /shards\[0\]\.replicas\[0\]\.name must be a name matching/);
  });

  it('leaves no run directory behind when the cluster does not answer', async () => {
    const reportDir = mkdtempSync(join(work, 'unreachable-'));
    const run = await attach(clusterFile(withReplicas(() => ({ direct_http: 'http://127.0.0.1:1' }))), reportDir);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(
      /replica\(s\) s1r1 .* do not answer \/ping \[EXTERNAL_UNREACHABLE\]$/,
    );
    expect(readdirSync(reportDir).filter((entry) => entry !== 'chaos-runner.log')).toEqual([]);
  });

  it('refuses a setting user whose queries are not logged: the checkers read query_log', async () => {
    // The embedded engine has no writable user storage (CREATE USER is refused) and reads its users
    // only at start: the profile changes in s1r1's users file, and s1r1 restarts to read it.
    const state = JSON.parse(readFileSync(join(description.dir, STATE_FILE), 'utf8')) as ClusterState;
    const node = state.nodes.find((each) => each.name === 's1r1');
    const users = join(dirname(node?.configPath ?? ''), 'users.xml');
    const original = readFileSync(users, 'utf8');
    const restart = async () => {
      for (const action of ['kill', 'start']) {
        const member = await runTs(
          'harness/cli/cluster-cli.ts',
          ['member', action, 's1r1', '--dir', description.dir],
          env,
        );
        expect(member.code, member.stderr).toBe(0);
      }
    };
    expect(original).toContain('<view_dedup_off>');
    writeFileSync(users, original.replace('<view_dedup_off>', '<view_dedup_off><log_queries>0</log_queries>'));
    try {
      await restart();
      await expectRefused(
        clusterFile(description),
        /log_queries is off for setting_users.view_dedup_off chaos_view_dedup_off on s1r1: the checkers read the INSERTs from system.query_log/,
      );
    } finally {
      writeFileSync(users, original);
      await restart();
    }
  });
});
