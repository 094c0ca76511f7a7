import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterDescription, harnessClient, queryRows } from '../harness/cluster/index.ts';
import { runTs } from '../harness/cluster/testing/run-cli.ts';
import { PROJECT_ROOT } from '../harness/base/index.ts';

// The external backend used the way a team with its own cluster uses it: a cluster started
// elsewhere (here by `npm run cluster -- up`, in another process), reached through its cluster
// file alone, left running and clean afterwards.

const stateDir = mkdtempSync(join(tmpdir(), 'external-state-'));
const work = mkdtempSync(join(tmpdir(), 'external-work-'));
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

function clusterFile(name: string, withCommands: boolean, extra: Record<string, unknown> = {}): string {
  const cli = `CHAOS_STATE_DIR=${stateDir} ${process.execPath} --import tsx ${resolve(PROJECT_ROOT, 'harness/cli/cluster-cli.ts')}`;
  const commands = Object.fromEntries(
    ['kill', 'pause', 'resume', 'start', 'status'].map((action) => [
      action,
      `cd ${PROJECT_ROOT} && ${cli} member ${action} "$CHAOS_MEMBER" --dir ${description.dir}`,
    ]),
  );
  const file = join(work, name);
  writeFileSync(
    file,
    JSON.stringify({ ...description, ...(withCommands ? { process_commands: commands } : {}), ...extra }),
  );
  return file;
}

const chaos = (args: string[], extraEnv: Record<string, string> = {}) =>
  runTs(
    'chaos/cli.ts',
    [
      '--backend',
      'external',
      '--seed',
      '11',
      '--sink',
      'AtLeastOnceClickHouseSink',
      '--report-dir',
      join(work, 'reports'),
      ...args,
    ],
    { ...env, ...extraEnv },
    600_000,
  );

/** What a failed run leaves to explain it (the work dir is removed after the file): the report's notes and each node's last log lines. */
function evidence(): string {
  const report = join(work, 'reports', 'latest', 'report.md');
  const notes = existsSync(report)
    ? readFileSync(report, 'utf8')
        .split('\n')
        .filter((line) => /run \d+:|died|infra/.test(line))
        .slice(0, 20)
    : [];
  const logs = description.shards
    .flatMap((shard) => shard.replicas)
    .flatMap((replica) =>
      ['stdout.log', 'clickhouse.err.log'].map((name) => {
        const file = join(description.dir, 'nodes', replica.name, 'log', name);
        const tail = existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-6).join('\n') : '(none)';
        return `--- ${replica.name} ${name}\n${tail}`;
      }),
    );
  return ['', ...notes, ...logs].join('\n');
}

async function databases(): Promise<string[]> {
  const client = harnessClient(description.shards[0]?.replicas[0]?.direct_http ?? '');
  try {
    return (
      await queryRows<{ name: string }>(client, "SELECT name FROM system.databases WHERE name LIKE 'chaos%'")
    ).map((row) => row.name);
  } finally {
    await client.close();
  }
}

describe('--backend external --cluster FILE', { timeout: 600_000 }, () => {
  it('runs scenarios with process faults through the file’s commands, and leaves the cluster running with none of its databases', async () => {
    const run = await chaos([
      '--cluster',
      clusterFile('with-commands.json', true),
      '--scenario',
      'unknown-outcome,replica-faults',
    ]);
    expect(run.code, `${run.stderr}${evidence()}`).toBe(0);
    expect(run.stderr).toMatch(/cluster attached in/);
    expect(run.stderr).toMatch(/replica-faults: pass/);
    expect(await databases()).toEqual([]);
    const status = await runTs('harness/cli/cluster-cli.ts', ['status', '--dir', description.dir], env);
    expect(
      Object.values((JSON.parse(status.stdout) as { members: Record<string, string> }).members).every(
        (state) => state === 'running',
      ),
    ).toBe(true);
  });

  // One run serves the next two tests: a file with credentials and no process commands, asked for
  // a scenario it can run and one it cannot.
  const credentials = { user: 'default', password_env_var: 'CHAOS_IT_PASSWORD' };
  const credentialsFile = () => clusterFile('credentials.json', false, { credentials });
  const withoutCommandsReports = join(work, 'without-commands-reports');
  let withoutCommands: ReturnType<typeof chaos> | undefined;
  const runWithoutCommands = () =>
    (withoutCommands ??= chaos(
      [
        '--cluster',
        credentialsFile(),
        '--scenario',
        'unknown-outcome,replica-faults',
        '--report-dir',
        withoutCommandsReports,
      ],
      { CHAOS_IT_PASSWORD: '' },
    ));

  it('does not run a scenario whose process faults the file gives no command for, and says why', async () => {
    const run = await runWithoutCommands();
    expect(run.code, 'not verified: no violation, one scenario inconclusive').toBe(3);
    expect(run.stderr).toMatch(/unknown-outcome: pass/);
    expect(run.stderr).toMatch(/replica-faults: inconclusive \(0 runs/);
    const latest = join(withoutCommandsReports, 'latest', 'summary.json');
    expect(existsSync(latest)).toBe(true);
    const summary = JSON.parse(readFileSync(latest, 'utf8')) as {
      classes: Record<string, { scenarios: Array<{ name: string; notes: string[] }> }>;
    };
    const notes =
      summary.classes.AtLeastOnceClickHouseSink?.scenarios.find((scenario) => scenario.name === 'replica-faults')
        ?.notes ?? [];
    expect(notes.join(' ')).toMatch(/not run: the cluster gives no way to kill \/ start \/ pause \/ resume a member/);
    expect(await databases()).toEqual([]);
  });

  it('connects as the file’s user with the password from its variable: a wrong one is refused before anything runs', async () => {
    const refused = await chaos(['--cluster', credentialsFile(), '--scenario', 'unknown-outcome'], {
      CHAOS_IT_PASSWORD: 'wrong',
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/replica s1r1 refused user default \(password from CHAOS_IT_PASSWORD\)/);
    expect(await databases()).toEqual([]);

    const run = await runWithoutCommands();
    expect(run.stderr).toMatch(/unknown-outcome: pass/);
    const runDir = join(withoutCommandsReports, 'latest', 'AtLeastOnceClickHouseSink__unknown-outcome', 'run-0');
    const launch = readFileSync(join(runDir, 'history.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"worker-launch"'))
      .map((line) => JSON.parse(line) as { spec: { parameters: Record<string, unknown> } })[0];
    expect(launch?.spec.parameters).toMatchObject(credentials);
    for (const file of ['history.jsonl', 'check-input.json', 'schedule.json'])
      expect(readFileSync(join(runDir, file), 'utf8')).not.toMatch(/"password":/);
  });

  it('refuses a file whose Toxiproxy lacks a proxy it names, before running anything', async () => {
    const file = join(work, 'missing-proxy.json');
    const [first, ...others] = description.shards;
    const renamed = {
      ...first,
      replicas: first?.replicas.map((replica, i) =>
        i === 0 ? { ...replica, proxies: { ...replica.proxies, client: 'no_such_proxy' } } : replica,
      ),
    };
    writeFileSync(file, JSON.stringify({ ...description, shards: [renamed, ...others] }));
    const run = await chaos(['--cluster', file, '--scenario', 'unknown-outcome']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/has no proxy no_such_proxy/);
  });
});
