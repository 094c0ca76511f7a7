import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { HarnessError } from '../base/index.ts';
import {
  writeClusterState,
  type ClusterState,
  type KafkaBrokerState,
  type KeeperState,
  type NodeState,
} from './cluster-state.ts';
import { describeCluster, type ClusterDescription } from './description.ts';
import { httpPing, keeperHealthy, waitUntil } from './health.ts';
import { describeLauncherExit } from './embedded/launcher.ts';
import { kafkaAnswers } from './kafka/api-versions.ts';
import { KAFKA_PRODUCER } from './topology.ts';
import { killRunProcesses, removeRunFiles, type RunDirFate } from './reaper.ts';
import {
  processMemory,
  processState,
  signalProcess,
  spawnLocal,
  tailOfFile,
  terminate,
  waitGone,
  type ProcessMemory,
  type ProcessRecord,
} from './process/local-process.ts';
import type { MemberState, StartedCluster } from './started-cluster.ts';

const HEALTH_TIMEOUT_MS = 60_000;

type Member =
  | { kind: 'node'; state: NodeState }
  | { kind: 'keeper'; state: KeeperState }
  | { kind: 'broker'; state: KafkaBrokerState };

/** A cluster of local processes (embedded and binary backends), driven from its state file. */
export class StartedLocalCluster implements StartedCluster {
  /** Set when `down` begins: work still running against the cluster (an interrupted run) must not revive a member. */
  private closed = false;

  constructor(
    private readonly state: ClusterState,
    private readonly log: Logger,
  ) {}

  get description(): ClusterDescription {
    return describeCluster(this.state);
  }

  get memberNames(): readonly string[] {
    return [
      ...this.state.nodes.map((node) => node.name),
      ...this.state.keepers.map((keeper) => keeper.name),
      ...(this.state.kafka ?? []).map((broker) => broker.name),
    ];
  }

  /** The state file's view; `cluster up` hands the cluster to the user by clearing the owner. */
  get clusterState(): ClusterState {
    return this.state;
  }

  handOver(): void {
    this.state.owner = null;
    writeClusterState(this.state);
  }

  async memberState(name: string): Promise<MemberState> {
    const record = this.member(name).state.process;
    return record === undefined ? 'dead' : processState(record);
  }

  async memoryUsage(): Promise<Readonly<Record<string, ProcessMemory>>> {
    const members: Array<readonly [string, ProcessRecord | undefined]> = [
      ...this.state.nodes.map((node) => [node.name, node.process] as const),
      ...this.state.keepers.map((keeper) => [keeper.name, keeper.process] as const),
      ...(this.state.kafka ?? []).map((broker) => [broker.name, broker.process] as const),
      ['toxiproxy', this.state.toxiproxy?.process],
    ];
    const usage: Record<string, ProcessMemory> = {};
    for (const [name, record] of members) {
      const memory = record === undefined ? undefined : processMemory(record);
      if (memory !== undefined) usage[name] = memory;
    }
    return usage;
  }

  async kill(name: string): Promise<void> {
    const record = this.record(name);
    signalProcess(record, 'SIGCONT');
    signalProcess(record, 'SIGKILL');
    if (!(await waitGone(record, 10_000)))
      throw new HarnessError('PROCESS_STUCK', `${name} (pid ${record.pid}) survived SIGKILL for 10 s`);
    this.log.info({ member: name, pid: record.pid }, 'member killed');
  }

  async stop(name: string): Promise<void> {
    await terminate(this.record(name));
    this.log.info({ member: name }, 'member stopped');
  }

  async pause(name: string): Promise<void> {
    const record = this.record(name);
    if (!signalProcess(record, 'SIGSTOP'))
      throw new HarnessError('MEMBER_NOT_RUNNING', `cannot pause ${name}: it is not running`);
    await waitUntil(`pause of ${name}`, async () => processState(record) === 'paused', {
      timeoutMs: 5000,
      intervalMs: 10,
    });
    this.log.info({ member: name }, 'member paused');
  }

  async resume(name: string): Promise<void> {
    const record = this.record(name);
    if (!signalProcess(record, 'SIGCONT'))
      throw new HarnessError('MEMBER_NOT_RUNNING', `cannot resume ${name}: it is not running`);
    await waitUntil(`resume of ${name}`, async () => processState(record) === 'running', {
      timeoutMs: 5000,
      intervalMs: 10,
    });
    this.log.info({ member: name }, 'member resumed');
  }

  async start(name: string): Promise<void> {
    if (this.closed) throw new HarnessError('CLUSTER_DOWN', `cannot start ${name}: the cluster is being torn down`);
    const member = this.member(name);
    const previous = member.state.process;
    if (previous === undefined) throw new HarnessError('MEMBER_UNKNOWN', `${name} was never started`);
    if (processState(previous) !== 'dead')
      throw new HarnessError('MEMBER_RUNNING', `${name} is already running (pid ${previous.pid})`);
    if (this.state.backend === 'embedded' && member.kind === 'node') {
      // clickhouse-local creates its system log tables afresh at every start and cannot adopt
      // the previous life's data: with it in place, log flushes hang. A restarted embedded node
      // therefore starts with empty system logs (a documented backend limit).
      rmSync(join(member.state.dataDir, 'data', 'system'), { recursive: true, force: true });
    }
    const spawned = spawnLocal(previous);
    member.state.process = spawned.record;
    writeClusterState(this.state);
    let exit: string | undefined;
    void spawned.exited.then(({ code, signal }) => {
      exit = describeLauncherExit(code, signal);
    });
    await this.waitHealthy(name, HEALTH_TIMEOUT_MS, () =>
      exit === undefined ? undefined : `${name} exited during start-up: ${exit}\n${tailOfFile(spawned.record.logFile)}`,
    );
    this.log.info({ member: name, pid: spawned.record.pid }, 'member started');
  }

  async restart(name: string): Promise<void> {
    await this.stop(name);
    await this.start(name);
  }

  async waitHealthy(name: string, timeoutMs = HEALTH_TIMEOUT_MS, abortIf?: () => string | undefined): Promise<void> {
    const member = this.member(name);
    const check = (): Promise<boolean> => {
      switch (member.kind) {
        case 'node':
          return httpPing(`http://127.0.0.1:${member.state.httpPort}`);
        case 'keeper':
          return keeperHealthy('127.0.0.1', member.state.clientPort);
        case 'broker':
          return kafkaAnswers(member.state.clients[KAFKA_PRODUCER]?.listener ?? 0);
      }
    };
    const record = this.record(name);
    await waitUntil(`${name}`, check, {
      timeoutMs,
      abortIf: () =>
        abortIf?.() ??
        (processState(record) === 'dead' ? `${name} is not running\n${tailOfFile(record.logFile)}` : undefined),
    });
  }

  async down(): Promise<void> {
    await this.teardown();
  }

  /** `down`, saying what became of the run directory (`cluster down` prints it). */
  async teardown(): Promise<RunDirFate> {
    this.closed = true;
    const killed = await killRunProcesses(this.state);
    const directory = removeRunFiles(this.state);
    this.log.info({ runId: this.state.runId, killed, directory }, 'cluster down');
    return directory;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.down();
  }

  private member(name: string): Member {
    const node = this.state.nodes.find((candidate) => candidate.name === name);
    if (node) return { kind: 'node', state: node };
    const keeper = this.state.keepers.find((candidate) => candidate.name === name);
    if (keeper) return { kind: 'keeper', state: keeper };
    const broker = this.state.kafka?.find((candidate) => candidate.name === name);
    if (broker) return { kind: 'broker', state: broker };
    throw new HarnessError(
      'MEMBER_UNKNOWN',
      `no cluster member named '${name}'; members: ${this.memberNames.join(', ')}`,
    );
  }

  private record(name: string): ProcessRecord {
    const record = this.member(name).state.process;
    if (record === undefined) throw new HarnessError('MEMBER_UNKNOWN', `${name} was never started`);
    return record;
  }
}
