import type { Logger } from 'pino';
import {
  GenericContainer,
  Network,
  Wait,
  getContainerRuntimeClient,
  type StartedNetwork,
  type StartedTestContainer,
} from 'testcontainers';
import { componentLogger, HarnessError } from '../../base/index.ts';
import { writeClusterState, type ClusterState } from '../cluster-state.ts';
import type { ClusterDescription } from '../description.ts';
import type { LocalClusterOptions } from '../embedded/start-embedded.ts';
import { PortAllocator } from '../ports.ts';
import { createProxies } from '../proxy-wiring.ts';
import { reapLeftovers, removeRunFiles } from '../reaper.ts';
import { createRunDir } from '../run-dir.ts';
import { statePaths } from '../state-dir.ts';
import type { MemberState, StartedCluster } from '../started-cluster.ts';
import { describeDockerCluster, type DockerRun, type StartedContainerFacts } from './docker-description.ts';
import { dockerPlan, IN_CONTAINER, publishedPortBindings, type ContainerPlan, type DockerPlan } from './docker-plan.ts';

export interface DockerClusterOptions extends LocalClusterOptions {
  /**
   * The run directory `cluster up` claimed and registered for this cluster (the detached holder):
   * the client port is reserved under it and `cluster down` removes it. By default the cluster
   * takes a run directory of its own (`dir`).
   */
  readonly claimedRun?: { readonly runId: string; readonly dir: string };
}

/**
 * The engine must be reachable, and, with proxies, run on this machine: the client proxies are
 * published on its loopback addresses (`127.10.<shard>.<replica>`), which a remote engine's are not.
 */
export async function requireDocker(proxies = false): Promise<void> {
  let host: string;
  try {
    host = (await getContainerRuntimeClient()).info.containerRuntime.host;
  } catch (error) {
    const reason = ((error as Error).message ?? String(error)).split('\n')[0];
    throw new HarnessError(
      'DOCKER_UNAVAILABLE',
      `the docker backend needs a running Docker engine and none was reachable (${reason}); use --backend embedded`,
      {
        cause: error,
      },
    );
  }
  if (proxies && !isLocalEngine(host)) {
    throw new HarnessError(
      'DOCKER_NOT_LOCAL',
      `the docker engine at ${host} is not on this machine: the client proxies are published on this machine's 127.10.<shard>.<replica> addresses; use a local engine, or --no-proxies`,
    );
  }
}

export function isLocalEngine(host: string): boolean {
  return host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1';
}

/**
 * testcontainers 11 publishes a port only on every host address (`withExposedPorts`); this
 * container also publishes ports on one host address each (Docker's `HostIp`).
 */
class AddressedContainer extends GenericContainer {
  withPublishedPorts(bindings: ReturnType<typeof publishedPortBindings>): this {
    this.createOpts.ExposedPorts = {
      ...this.createOpts.ExposedPorts,
      ...Object.fromEntries(Object.keys(bindings).map((port) => [port, {}])),
    };
    this.hostConfig.PortBindings = { ...this.hostConfig.PortBindings, ...bindings };
    return this;
  }
}

/** The container of one plan entry, as it will be asked of the engine. */
export function containerFor(
  plan: ContainerPlan,
  network: StartedNetwork,
  clientPort: number | undefined,
): GenericContainer {
  const container = new AddressedContainer(plan.image)
    .withNetwork(network)
    .withNetworkAliases(plan.alias)
    .withEnvironment({ ...plan.env })
    .withExposedPorts(...plan.exposedPorts)
    .withCopyContentToContainer(plan.files.map((file) => ({ content: file.content, target: file.target })));
  if (plan.publishedPorts.length > 0) {
    if (clientPort === undefined)
      throw new Error(`${plan.name} publishes client proxies but no client port was chosen`);
    container.withPublishedPorts(publishedPortBindings(plan, clientPort));
  }
  if (plan.command !== undefined) container.withCommand([...plan.command]);
  if (plan.kind === 'clickhouse')
    return container.withWaitStrategy(Wait.forHttp('/ping', IN_CONTAINER.http).forStatusCode(200));
  if (plan.kind === 'toxiproxy')
    return container.withWaitStrategy(Wait.forHttp('/version', IN_CONTAINER.toxiproxyApi).forStatusCode(200));
  return container.withWaitStrategy(Wait.forListeningPorts());
}

/** A command run in a member's container that succeeds once the member serves. */
export function healthProbe(kind: ContainerPlan['kind']): string[] {
  switch (kind) {
    case 'keeper':
      return ['clickhouse-keeper-client', '-q', 'ls /'];
    case 'kafka':
      // The internal listener: its advertised name resolves inside the network, the producer's does not.
      return [
        '/opt/kafka/bin/kafka-broker-api-versions.sh',
        '--bootstrap-server',
        `localhost:${IN_CONTAINER.kafkaInternal}`,
      ];
    default:
      return ['clickhouse-client', '-q', 'SELECT 1'];
  }
}

/** What the engine says about a started container: its host and the ports it chose. */
function factsOf(plan: ContainerPlan, container: StartedTestContainer): StartedContainerFacts {
  return {
    host: container.getHost(),
    mappedPorts: Object.fromEntries(plan.exposedPorts.map((port) => [port, container.getMappedPort(port)])),
  };
}

/**
 * The docker backend: official ClickHouse server and Keeper images and the real Toxiproxy on
 * one network. Containers live as long as this process (testcontainers' reaper removes them);
 * the client port is reserved under the run directory, so the reaper frees it after a crash.
 */
export async function startDockerCluster(options: DockerClusterOptions): Promise<StartedDockerCluster> {
  const log = options.logger ?? componentLogger('cluster');
  const proxies = options.proxies ?? true;
  await requireDocker(proxies);
  // Planned once to refuse what it cannot hold before anything exists; again once the port is known.
  dockerPlan(options.topology, proxies);
  for (const reaped of await reapLeftovers()) log.warn(reaped, 'removed a leftover run');
  const { run, state } = takeRunDir(options, proxies);
  const allocator = new PortAllocator(statePaths().ports, run.dir);
  const started = new Map<string, StartedTestContainer>();
  let network: StartedNetwork | undefined;
  try {
    // The client port carries every published link: the client proxies, and the producer's link to each broker.
    const [clientPort] = proxies || (options.topology.kafka ?? 0) > 0 ? await allocator.allocate(1) : [];
    const plan = dockerPlan(options.topology, proxies, clientPort);
    if (state !== undefined) {
      Object.assign(state, { ports: [...allocator.reserved] });
      writeClusterState(state);
    }
    const net = await new Network().start();
    network = net;
    const startAll = async (kind: ContainerPlan['kind']) => {
      await Promise.all(
        plan.containers
          .filter((container) => container.kind === kind)
          .map(async (container) =>
            started.set(container.name, await containerFor(container, net, clientPort).start()),
          ),
      );
    };
    await Promise.all([startAll('keeper'), startAll('toxiproxy')]);
    const toxiproxy = started.get('toxiproxy');
    if (toxiproxy !== undefined) {
      await createProxies(
        `http://${toxiproxy.getHost()}:${toxiproxy.getMappedPort(IN_CONTAINER.toxiproxyApi)}`,
        plan.proxies,
      );
    }
    await Promise.all([startAll('clickhouse'), startAll('kafka')]);
    const record = { runId: run.runId, dir: run.dir, clientPort, own: state !== undefined };
    return new StartedDockerCluster(record, plan, started, net, log);
  } catch (error) {
    await Promise.all([...started.values()].map((container) => container.stop().catch(() => undefined)));
    await network?.stop().catch(() => undefined);
    if (state === undefined) allocator.releaseAll();
    else removeRunFiles(state);
    throw error;
  }
}

/** The run directory `cluster up` claimed, or one of its own with a state file its owner's death makes a leftover. */
function takeRunDir(
  options: DockerClusterOptions,
  proxies: boolean,
): { run: { readonly runId: string; readonly dir: string }; state?: ClusterState } {
  if (options.claimedRun !== undefined) return { run: options.claimedRun };
  const state = createRunDir({
    backend: 'docker',
    topology: options.topology,
    proxiesEnabled: proxies,
    dir: options.dir,
  });
  return { run: state, state };
}

/** A started docker cluster's run: its directory, client port, and whether removing the directory is this cluster's job. */
interface DockerRunRecord extends DockerRun {
  readonly own: boolean;
}

export class StartedDockerCluster implements StartedCluster {
  constructor(
    private readonly run: DockerRunRecord,
    private readonly plan: DockerPlan,
    private readonly containers: Map<string, StartedTestContainer>,
    private readonly network: StartedNetwork,
    private readonly log: Logger,
  ) {}

  get description(): ClusterDescription {
    const facts = new Map(
      this.plan.containers.flatMap((plan) => {
        const container = this.containers.get(plan.name);
        return container === undefined ? [] : [[plan.name, factsOf(plan, container)] as const];
      }),
    );
    return describeDockerCluster(this.plan, this.run, facts);
  }

  get memberNames(): readonly string[] {
    return [...this.containers.keys()].filter((name) => name !== 'toxiproxy');
  }

  /** Containers' memory is the engine's to report (`docker stats`); the soak trend records null. */
  async memoryUsage(): Promise<undefined> {
    return undefined;
  }

  async memberState(name: string): Promise<MemberState> {
    const client = await getContainerRuntimeClient();
    const info = await client.container.inspect(client.container.getById(this.container(name).getId()));
    if (info.State.Paused) return 'paused';
    return info.State.Running ? 'running' : 'dead';
  }

  async kill(name: string): Promise<void> {
    await this.docker(name, (container) => container.kill({ signal: 'SIGKILL' }));
  }

  async stop(name: string): Promise<void> {
    await this.docker(name, (container) => container.stop({ t: 10 }));
  }

  async pause(name: string): Promise<void> {
    await this.docker(name, (container) => container.pause());
  }

  async resume(name: string): Promise<void> {
    await this.docker(name, (container) => container.unpause());
  }

  async start(name: string): Promise<void> {
    await this.docker(name, (container) => container.start());
    await this.waitHealthy(name);
  }

  async restart(name: string): Promise<void> {
    await this.stop(name);
    await this.start(name);
  }

  async waitHealthy(name: string, timeoutMs = 60_000): Promise<void> {
    const container = this.container(name);
    const deadline = Date.now() + timeoutMs;
    const probe = healthProbe(this.plan.containers.find((each) => each.name === name)?.kind ?? 'clickhouse');
    while ((await container.exec(probe)).exitCode !== 0) {
      if (Date.now() > deadline)
        throw new HarnessError('MEMBER_UNHEALTHY', `${name} was not healthy within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async down(): Promise<void> {
    await Promise.all(
      [...this.containers.values()].map((container) => container.stop({ remove: true }).catch(() => undefined)),
    );
    await this.network.stop();
    // A run directory `cluster up` claimed is its `down`'s to remove, after this process exits.
    const directory = this.run.own ? removeRunFiles(this.run) : undefined;
    this.log.info({ runId: this.run.runId, directory }, 'docker cluster down');
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.down();
  }

  private container(name: string): StartedTestContainer {
    const container = this.containers.get(name);
    if (container === undefined)
      throw new HarnessError(
        'MEMBER_UNKNOWN',
        `no cluster member named '${name}'; members: ${this.memberNames.join(', ')}`,
      );
    return container;
  }

  private async docker(
    name: string,
    action: (
      container: ReturnType<Awaited<ReturnType<typeof getContainerRuntimeClient>>['container']['getById']>,
    ) => Promise<unknown>,
  ): Promise<void> {
    const client = await getContainerRuntimeClient();
    await action(client.container.getById(this.container(name).getId()));
    this.log.info({ member: name }, 'docker member changed');
  }
}
