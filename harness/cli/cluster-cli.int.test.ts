import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readClusterState, stateProcesses, type ClusterState } from '../cluster/cluster-state.ts';
import { type ClusterDescription, isAlive } from '../cluster/index.ts';
import { kafkaAnswersAt } from '../cluster/kafka/api-versions.ts';
import { canBind } from '../cluster/ports.ts';
import { PROJECT_ROOT, runTs } from '../cluster/testing/run-cli.ts';

const CLI = 'harness/cli/cluster-cli.ts';
const stateDir = mkdtempSync(join(tmpdir(), 'cluster-cli-test-'));
// Its own port reservations too, so the test can see that every one of them is released.
const env = { CHAOS_STATE_DIR: stateDir, CHAOS_PORTS_DIR: join(stateDir, 'ports') };
const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runTs(CLI, args, { ...env, ...extraEnv });

function expectOneLineError(result: { code: number; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

afterAll(async () => {
  await cli(['down', '--all']);
  rmSync(stateDir, { recursive: true, force: true });
});

describe('cluster up / status / down', () => {
  it('prints one JSON document, answers status from another process and leaves nothing behind after down', async () => {
    const up = await cli(['up', '--shards', '1', '--replicas', '2']);
    expect(up.code, up.stderr).toBe(0);
    const lines = up.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const description = JSON.parse(lines[0] ?? '') as ClusterDescription;
    expect(description).toMatchObject({ backend: 'embedded', cluster: 'chaos', proxies_enabled: true });
    expect(description.toxiproxy).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(description.keepers).toEqual([{ name: 'k1', address: expect.stringMatching(/^127\.0\.0\.1:\d+$/) }]);
    expect(description.shards[0]?.replicas.map((replica) => replica.name)).toEqual(['s1r1', 's1r2']);
    expect(description.shards[0]?.replicas[0]?.proxies).toMatchObject({
      client: 's1r1_client',
      keeper: 's1r1_keeper_k1',
      interserver: 's1r1_interserver',
    });

    const ping = await fetch(`${description.shards[0]?.replicas[0]?.http}/ping`);
    expect(await ping.text()).toBe('Ok.\n');

    const status = await cli(['status']);
    expect(status.code, status.stderr).toBe(0);
    const members = (JSON.parse(status.stdout) as { members: Record<string, string> }).members;
    expect(members).toEqual({ s1r1: 'running', s1r2: 'running', k1: 'running' });

    const state = JSON.parse(
      await import('node:fs').then((fs) => fs.readFileSync(join(description.dir, 'cluster.json'), 'utf8')),
    ) as ClusterState;
    const down = await cli(['down']);
    expect(down.code, down.stderr).toBe(0);
    for (const record of [
      ...state.nodes.map((n) => n.process),
      ...state.keepers.map((k) => k.process),
      state.toxiproxy?.process,
    ]) {
      expect(record && isAlive(record)).toBe(false);
    }
    expect(existsSync(description.dir)).toBe(false);
    expect(readdirSync(join(stateDir, 'ports'))).toEqual([]);
    for (const port of state.ports) expect(await canBind(port, '127.0.0.1')).toBe(true);
  });

  it('runs the real Toxiproxy with --proxy toxiproxy, the same proxies behind it, and leaves it not running after down', async () => {
    const up = await cli(['up', '--shards', '1', '--replicas', '1', '--proxy', 'toxiproxy']);
    expect(up.code, up.stderr).toBe(0);
    const description = JSON.parse(up.stdout) as ClusterDescription;
    expect(description.toxiproxy_server).toBe('toxiproxy');
    const state = readClusterState(description.dir);
    expect(state.toxiproxy?.process?.command).toContain('toxiproxy-server');
    // The real server's proxy JSON carries the empty `Logger` member ours leaves out (README of chaos/toxiproxy).
    const proxies = (await (await fetch(`${description.toxiproxy}/proxies`)).json()) as Record<string, object>;
    expect(Object.keys(proxies).sort()).toEqual(['s1r1_client', 's1r1_interserver', 's1r1_keeper_k1']);
    expect(proxies['s1r1_client']).toHaveProperty('Logger');
    expect(await (await fetch(`${description.shards[0]?.replicas[0]?.http}/ping`)).text()).toBe('Ok.\n');
    const down = await cli(['down']);
    expect(down.code, down.stderr).toBe(0);
    expect(state.toxiproxy?.process && isAlive(state.toxiproxy.process)).toBe(false);
  });

  // One broker: three JVMs starting at once cost the rest of the suite, which runs beside this
  // file, more than the quorum adds (its config is unit-tested; `--kafka 3` was run by hand).
  it('runs a Kafka broker with --kafka 1, each client behind its own proxy; the broker is killed and started like any member, and down leaves none', async () => {
    const up = await cli(['up', '--shards', '1', '--replicas', '1', '--kafka', '1']);
    expect(up.code, up.stderr).toBe(0);
    const description = JSON.parse(up.stdout) as ClusterDescription;
    expect(description.kafka?.map((broker) => broker.name)).toEqual(['kf1']);
    expect(description.kafka?.[0]?.proxies).toEqual({ s1r1: 's1r1_kafka_kf1', producer: 'producer_kafka_kf1' });
    // Every broker answers a Kafka request through the producer's own proxy.
    for (const broker of description.kafka ?? [])
      expect(await kafkaAnswersAt(broker.bootstrap['producer'] ?? '')).toBe(true);
    const state = readClusterState(description.dir);
    expect(await cli(['member', 'kill', 'kf1'])).toMatchObject({ code: 0 });
    expect((await cli(['member', 'status', 'kf1'])).stdout.trim()).toBe('dead');
    expect(await cli(['member', 'start', 'kf1'])).toMatchObject({ code: 0 });
    expect((await cli(['member', 'status', 'kf1'])).stdout.trim()).toBe('running');
    const restarted = readClusterState(description.dir);
    const down = await cli(['down']);
    expect(down.code, down.stderr).toBe(0);
    for (const broker of [...(state.kafka ?? []), ...(restarted.kafka ?? [])])
      expect(broker.process && isAlive(broker.process)).toBe(false);
    expect(existsSync(description.dir)).toBe(false);
  });

  it('two clusters started at once on one machine both come up, on disjoint ports and directories', async () => {
    const [first, second] = await Promise.all([
      cli(['up', '--shards', '1', '--replicas', '2']),
      cli(['up', '--shards', '1', '--replicas', '2']),
    ]);
    expect(first?.code, first?.stderr).toBe(0);
    expect(second?.code, second?.stderr).toBe(0);
    const [a, b] = [first, second].map((result) => JSON.parse(result?.stdout.trim() ?? '') as ClusterDescription);
    expect(a?.dir).not.toBe(b?.dir);
    const portsOf = (description: ClusterDescription | undefined) =>
      (JSON.parse(readFileSync(join(description?.dir ?? '', 'cluster.json'), 'utf8')) as ClusterState).ports;
    const shared = portsOf(a).filter((port) => portsOf(b).includes(port));
    expect(shared).toEqual([]);
    for (const description of [a, b])
      expect(await (await fetch(`${description?.shards[0]?.replicas[1]?.http}/ping`)).text()).toBe('Ok.\n');
    for (const description of [a, b]) expect((await cli(['down', '--dir', description?.dir ?? ''])).code).toBe(0);
    expect(readdirSync(join(stateDir, 'ports'))).toEqual([]);
  });

  it('detects the run directory of a killed runner and cleans it at the next up, its Kafka broker too', async () => {
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', resolve(PROJECT_ROOT, 'harness/cluster/testing/hold-cluster.ts'), '1'],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const firstLine = await new Promise<string>((resolveLine, reject) => {
      let buffer = '';
      holder.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        if (buffer.includes('\n')) resolveLine(buffer.split('\n')[0] ?? '');
      });
      holder.once('exit', () => reject(new Error('holder exited before starting its cluster')));
    });
    const orphan = JSON.parse(firstLine) as ClusterState;
    holder.kill('SIGKILL');
    await new Promise((resolveExit) => holder.once('exit', resolveExit));
    const orphanProcesses = [
      ...orphan.nodes.map((n) => n.process),
      ...orphan.keepers.map((k) => k.process),
      ...(orphan.kafka ?? []).map((b) => b.process),
    ].filter((p) => p !== undefined);
    expect(orphanProcesses).toHaveLength(3);
    expect(orphanProcesses.every(isAlive)).toBe(true);

    const up = await cli(['up', '--shards', '1', '--replicas', '1'], { LOG_LEVEL: 'warn' });
    expect(up.code, up.stderr).toBe(0);
    expect(up.stderr).toContain('removed a leftover run');
    expect(up.stderr).toContain(orphan.runId);
    expect(orphanProcesses.some(isAlive)).toBe(false);
    expect(existsSync(orphan.dir)).toBe(false);
    expect((await cli(['down'])).code).toBe(0);
  });

  it('a user file in a --dir survives down; everything the harness wrote there is gone', async () => {
    const dir = join(stateDir, 'user-dir');
    const up = await cli(['up', '--shards', '1', '--replicas', '1', '--dir', dir]);
    expect(up.code, up.stderr).toBe(0);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const down = await cli(['down', '--dir', dir]);
    expect(down.code, down.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    expect(JSON.parse(down.stdout)).toMatchObject({
      dir,
      directory: 'kept: it holds files the harness did not write: notes.txt',
    });
    rmSync(dir, { recursive: true });
  });

  it('a foreground up interrupted half-way (Ctrl-C) tears down what it started, keeps a user file, and exits 130', async () => {
    const dir = join(stateDir, 'interrupted-dir');
    const up = spawn(
      process.execPath,
      ['--import', 'tsx', resolve(PROJECT_ROOT, CLI), 'up', '--shards', '2', '--replicas', '2', '--dir', dir],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, ...env },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolveExit) => up.once('exit', (code) => resolveExit(code)));
    const registry = join(stateDir, 'registry');
    // The moment the first processes exist: the state file names them.
    let processes: ReturnType<typeof stateProcesses> = [];
    while (processes.length === 0) {
      await new Promise((resolveWait) => setTimeout(resolveWait, 50));
      const [runId] = existsSync(registry) ? readdirSync(registry) : [];
      if (runId === undefined) continue;
      try {
        processes = stateProcesses(readClusterState(readlinkSync(join(registry, runId))));
      } catch {
        // Not written yet.
      }
    }
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    process.kill(-(up.pid ?? 0), 'SIGINT');
    expect(await exited).toBe(130);
    expect(processes.some(isAlive)).toBe(false);
    expect(readdirSync(registry)).toEqual([]);
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    rmSync(dir, { recursive: true });
  });
});

describe('bad input: one clear line, non-zero exit', () => {
  let blocker: Server;
  let blockedPort = 0;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolveListen) => blocker.listen(0, '127.0.0.1', resolveListen));
    blockedPort = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolveClose) => blocker.close(() => resolveClose())));

  it('a fault proxy API port in use', async () => {
    expectOneLineError(
      await cli(['up', '--toxiproxy-port', String(blockedPort)]),
      new RegExp(`port ${blockedPort} is already in use.*PORT_IN_USE`),
    );
  });

  it("a --dir that is not empty and not the harness's: exit 2, nothing created, the directory as it was", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cluster-cli-user-dir-'));
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const listing = (path: string) => (existsSync(path) ? readdirSync(path).sort() : []);
    const snapshot = () => ['', 'registry', 'ports', 'runs'].map((entry) => listing(join(stateDir, entry)));
    const stateBefore = snapshot();
    try {
      const result = await cli(['up', '--dir', dir]);
      expectOneLineError(result, new RegExp(`run directory ${dir} is not empty \\(notes\\.txt\\).*RUN_DIR_NOT_OURS`));
      expect(result.code).toBe(2);
      expect(readdirSync(dir)).toEqual(['notes.txt']);
      expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
      expect(snapshot()).toEqual(stateBefore);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--proxy toxiproxy without the real Toxiproxy built: exit 2, one line naming what it needs', async () => {
    const result = await cli(['up', '--proxy', 'toxiproxy'], {
      CHAOS_TOXIPROXY_BINARY: '/nonexistent/toxiproxy-server',
    });
    expectOneLineError(result, /CHAOS_TOXIPROXY_BINARY names \/nonexistent\/toxiproxy-server.*PROXY_SERVER_MISSING/);
    expect(result.code).toBe(2);
  });

  it('--kafka 1 without the broker installed: exit 2, one line naming what it needs', async () => {
    const result = await cli(['up', '--kafka', '1'], { CHAOS_KAFKA_LIB: '/nonexistent/libs' });
    expectOneLineError(result, /Kafka 4\.1\.1 broker is not installed.*run scripts\/setup\.sh.*KAFKA_MISSING/);
    expect(result.code).toBe(2);
  });

  it('an unknown backend', async () => {
    expectOneLineError(
      await cli(['up', '--backend', 'kubernetes']),
      /unknown backend 'kubernetes'; choose one of embedded, docker, binary/,
    );
  });

  it('the docker backend without a Docker engine', async () => {
    expectOneLineError(
      await cli(['up', '--backend', 'docker'], { DOCKER_HOST: 'unix:///nonexistent/docker.sock' }),
      /Docker.*DOCKER_UNAVAILABLE/,
    );
  });

  it('the binary backend without a clickhouse binary', async () => {
    expectOneLineError(
      await cli(['up', '--backend', 'binary'], { PATH: '/nonexistent' }),
      /`clickhouse` binary.*CLICKHOUSE_BINARY_MISSING/,
    );
  });

  it('java missing', async () => {
    expectOneLineError(
      await cli(['up'], { PATH: '/nonexistent' }),
      /java is not installed.*default-jre-headless.*JAVA_MISSING/,
    );
  });

  it('zookeeper missing', async () => {
    expectOneLineError(
      await cli(['up'], { ZOOKEEPER_JAR: '/nonexistent/zookeeper.jar' }),
      /apt-get install zookeeper.*ZOOKEEPER_MISSING/,
    );
  });

  it('gcc missing when the launcher must be built', async () => {
    const javaDir = mkdtempSync(join(stateDir, 'only-java-'));
    await import('node:fs').then((fs) => fs.symlinkSync('/usr/bin/java', join(javaDir, 'java')));
    const launcher = join(mkdtempSync(join(stateDir, 'launcher-')), 'chdb-launcher');
    expectOneLineError(
      await cli(['up'], { PATH: javaDir, CHAOS_LAUNCHER_PATH: launcher }),
      /gcc is not installed.*apt-get install gcc.*GCC_MISSING/,
    );
  });

  it('a different engine library build', async () => {
    const fake = join(mkdtempSync(join(stateDir, 'fake-lib-')), 'libchdb.so');
    writeFileSync(fake, 'not the engine');
    expectOneLineError(
      await cli(['up'], { CHDB_LIBRARY: fake }),
      /has sha256 [0-9a-f]{64}, not the @chdb\/lib-linux-x64-gnu@26\.7\.3-stable\.1 build.*LIBRARY_WRONG_BUILD/,
    );
  });

  it('an invalid topology', async () => {
    expectOneLineError(
      await cli(['up', '--keepers', '2']),
      /--keepers 2 cannot form a useful quorum.*TOPOLOGY_INVALID/,
    );
    expectOneLineError(await cli(['up', '--shards', 'two']), /--shards takes a whole number, got 'two'/);
  });
});
