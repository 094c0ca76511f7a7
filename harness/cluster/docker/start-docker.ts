import type { Logger } from 'pino';
import {
  GenericContainer,
  Network,
  Wait,
  getContainerRuntimeClient,
  type StartedNetwork,
  type StartedTestContainer,
} from 'testcontainers';
import { HarnessError } from '../../errors.ts';
import { componentLogger } from '../../log.ts';
import { BACKEND_LIMITS, STARTED_SETTING_USERS, type ClusterDescription } from '../description.ts';
import type { LocalClusterOptions } from '../embedded/start-embedded.ts';
import { createProxies } from '../proxy-wiring.ts';
import { newRunId } from '../run-dir.ts';
import type { MemberState, StartedCluster } from '../started-cluster.ts';
import { CLUSTER_NAME, proxyNames } from '../topology.ts';
import { dockerPlan, IN_CONTAINER, type ContainerPlan } from './docker-plan.ts';

export async function requireDocker(): Promise<void> {
  try {
    await getContainerRuntimeClient();
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
}

function containerFor(plan: ContainerPlan, network: StartedNetwork): GenericContainer {
  const container = new GenericContainer(plan.image)
    .withNetwork(network)
    .withNetworkAliases(plan.alias)
    .withEnvironment({ ...plan.env })
    .withExposedPorts(...plan.exposedPorts)
    .withCopyContentToContainer(plan.files.map((file) => ({ content: file.content, target: file.target })));
  if (plan.command !== undefined) container.withCommand([...plan.command]);
  if (plan.kind === 'clickhouse')
    return container.withWaitStrategy(Wait.forHttp('/ping', IN_CONTAINER.http).forStatusCode(200));
  if (plan.kind === 'toxiproxy')
    return container.withWaitStrategy(Wait.forHttp('/version', IN_CONTAINER.toxiproxyApi).forStatusCode(200));
  return container.withWaitStrategy(Wait.forListeningPorts());
}

/**
 * The docker backend: official ClickHouse server and Keeper images and the real Toxiproxy on
 * one network. Containers live as long as this process (testcontainers' reaper removes them).
 */
export async function startDockerCluster(options: LocalClusterOptions): Promise<StartedDockerCluster> {
  const log = options.logger ?? componentLogger('cluster');
  await requireDocker();
  const plan = dockerPlan(options.topology, options.proxies ?? true);
  const network = await new Network().start();
  const started = new Map<string, StartedTestContainer>();
  const startAll = async (kind: ContainerPlan['kind']) => {
    await Promise.all(
      plan.containers
        .filter((container) => container.kind === kind)
        .map(async (container) => started.set(container.name, await containerFor(container, network).start())),
    );
  };
  try {
    await Promise.all([startAll('keeper'), startAll('toxiproxy')]);
    const toxiproxy = started.get('toxiproxy');
    if (toxiproxy !== undefined) {
      await createProxies(
        `http://${toxiproxy.getHost()}:${toxiproxy.getMappedPort(IN_CONTAINER.toxiproxyApi)}`,
        plan.proxies,
      );
    }
    await startAll('clickhouse');
  } catch (error) {
    await Promise.all([...started.values()].map((container) => container.stop().catch(() => undefined)));
    await network.stop().catch(() => undefined);
    throw error;
  }
  return new StartedDockerCluster(newRunId(), plan.clientProxyPorts, started, network, options.topology.keepers, log);
}

export class StartedDockerCluster implements StartedCluster {
  constructor(
    private readonly runId: string,
    private readonly clientProxyPorts: Readonly<Record<string, number>>,
    private readonly containers: Map<string, StartedTestContainer>,
    private readonly network: StartedNetwork,
    private readonly keeperCount: number,
    private readonly log: Logger,
  ) {}

  get description(): ClusterDescription {
    const toxiproxy = this.containers.get('toxiproxy');
    const host = (container: StartedTestContainer, port: number) =>
      `http://${container.getHost()}:${container.getMappedPort(port)}`;
    const nodes = [...this.containers].filter(([name]) => /^s\d+r\d+$/.test(name));
    const shards = new Map<string, ClusterDescription['shards'][number]['replicas'][number][]>();
    for (const [name, container] of nodes) {
      const shard = name.replace(/r\d+$/, '');
      const keepers = Array.from({ length: this.keeperCount }, (_, index) => proxyNames.keeper(name, `k${index + 1}`));
      const clientPort = this.clientProxyPorts[name];
      shards.set(shard, [
        ...(shards.get(shard) ?? []),
        {
          name,
          http:
            toxiproxy && clientPort !== undefined ? host(toxiproxy, clientPort) : host(container, IN_CONTAINER.http),
          direct_http: host(container, IN_CONTAINER.http),
          tcp: `${container.getHost()}:${container.getMappedPort(IN_CONTAINER.tcp)}`,
          proxies: {
            client: proxyNames.client(name),
            keeper: keepers[0] ?? '',
            keepers,
            interserver: proxyNames.interserver(name),
          },
        },
      ]);
    }
    return {
      backend: 'docker',
      cluster: CLUSTER_NAME,
      run_id: this.runId,
      dir: '',
      toxiproxy: toxiproxy ? host(toxiproxy, IN_CONTAINER.toxiproxyApi) : null,
      proxies_enabled: toxiproxy !== undefined,
      keepers: [...this.containers]
        .filter(([name]) => /^k\d+$/.test(name))
        .map(([name, container]) => ({
          name,
          address: `${container.getHost()}:${container.getMappedPort(IN_CONTAINER.keeperClient)}`,
        })),
      shards: [...shards].map(([name, replicas]) => ({ name, replicas })),
      backend_limits: BACKEND_LIMITS.docker,
      setting_users: STARTED_SETTING_USERS,
    };
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
    const probe = /^k\d+$/.test(name)
      ? ['clickhouse-keeper-client', '-q', 'ls /']
      : ['clickhouse-client', '-q', 'SELECT 1'];
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
    this.log.info({ runId: this.runId }, 'docker cluster down');
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
