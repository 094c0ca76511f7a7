import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aimTarget } from '../../../chaos/nemeses/index.ts';
import { arbSinkSpec, clusterEndpoints } from '../../../properties/arbitraries/index.ts';
import { runSinkCli } from '../../../sinks/cli-commands.ts';
import { SINK_CLASS_NAMES } from '../../../sinks/index.ts';
import { SinkRegistry } from '../../../sinks/registry.ts';
import type { HostTopology } from '../../../sinks/spec/sink-spec.ts';
import { validateSinkSpec } from '../../../sinks/spec/validate-spec.ts';
import { describeDockerCluster, type StartedContainerFacts } from './docker-description.ts';
import { dockerPlan, IN_CONTAINER, publishedPortBindings } from './docker-plan.ts';

// The docker description as start-docker.ts builds it from its plan, with what an engine answers
// after start: every exposed port on a port of the engine's choosing on `localhost`.
const plan = dockerPlan({ shards: 2, replicas: 2, keepers: 3 });
const CLIENT_PORT = 24_567;
let enginePort = 32_768;
const started = new Map<string, StartedContainerFacts>(
  plan.containers.map((container) => [
    container.name,
    { host: 'localhost', mappedPorts: Object.fromEntries(container.exposedPorts.map((port) => [port, enginePort++])) },
  ]),
);
const description = describeDockerCluster(
  plan,
  { runId: 'docker-run', dir: '/tmp/docker-run', clientPort: CLIENT_PORT },
  started,
);
const replicas = description.shards.flatMap((shard) =>
  shard.replicas.map((replica) => ({ shard: shard.name, replica })),
);

/** Every host a validated spec names, with the shard it names it for (shard_hosts). */
function specHosts(topology: HostTopology): Array<{ readonly shard?: string; readonly host: string }> {
  switch (topology.form) {
    case 'host':
      return [{ host: topology.host }];
    case 'hosts':
      return topology.hosts.map((host) => ({ host }));
    case 'shard_hosts':
      return [...topology.shards].flatMap(([shard, hosts]) => hosts.map((host) => ({ shard, host })));
  }
}

describe('the docker description', () => {
  it('gives each replica its own client address on one port, published there by the engine to its own proxy', () => {
    const endpoints = clusterEndpoints(description);
    expect(endpoints.port).toBe(CLIENT_PORT);
    expect([...endpoints.shards]).toEqual([
      ['s1', ['127.10.1.1', '127.10.1.2']],
      ['s2', ['127.10.2.1', '127.10.2.2']],
    ]);
    const toxiproxy = plan.containers.find((container) => container.kind === 'toxiproxy');
    if (toxiproxy === undefined) throw new Error('no toxiproxy container in the plan');
    const bindings = publishedPortBindings(toxiproxy, CLIENT_PORT);
    for (const { replica } of replicas) {
      const { hostname, port } = new URL(replica.http);
      const published = toxiproxy.publishedPorts.filter((candidate) => candidate.hostIp === hostname);
      expect(published).toHaveLength(1);
      const containerPort = published[0]?.containerPort;
      expect(bindings[`${containerPort}/tcp`]).toEqual([{ HostIp: hostname, HostPort: port }]);
      expect(plan.proxies.filter((proxy) => proxy.listen === `0.0.0.0:${containerPort}`)).toEqual([
        {
          name: replica.proxies.client,
          listen: `0.0.0.0:${containerPort}`,
          upstream: `${replica.name}:${IN_CONTAINER.http}`,
          enabled: true,
        },
      ]);
    }
  });

  it.each(SINK_CLASS_NAMES)(
    'takes every %s spec the chaos job draws, and each host of it is a distinct replica the fault aim finds (seed 7)',
    async (sinkClass) => {
      const endpoints = clusterEndpoints(description);
      const reached = new Set<string>();
      await fc.assert(
        fc.asyncProperty(
          arbSinkSpec({ sinkClass, name: 'chaos_sink', database: 'chaos_1', table: 'events_rep', endpoints }),
          async (raw) => {
            const errors: string[] = [];
            const cli = await runSinkCli(['validate', 'spec.json'], {
              readFile: async () => JSON.stringify(raw),
              cwd: '/',
              out: () => undefined,
              err: (line) => errors.push(line),
            });
            expect(errors).toEqual([]);
            expect(cli).toBe(0);
            const result = validateSinkSpec(raw, { registry: SinkRegistry.descriptorsOnly() });
            if (!result.ok) throw new Error('the CLI took a spec the validator refuses');
            const { topology, port } = result.spec.parameters;
            const targets = specHosts(topology).map(({ shard, host }) => {
              const target = aimTarget(description, `${host}:${port}`);
              expect(target, `${host}:${port} aims at no replica`).toBeDefined();
              if (shard !== undefined)
                expect(replicas.find(({ replica }) => replica === target?.replica)?.shard).toBe(shard);
              return target?.replica.name ?? '';
            });
            expect(new Set(targets).size).toBe(targets.length);
            for (const target of targets) reached.add(target);
          },
        ),
        { seed: 7, numRuns: 40 },
      );
      // shard_hosts names every replica; host and hosts name the first shard's.
      expect([...reached].sort()).toEqual(
        sinkClass === 'ClickHouseBatchingSink' ? ['s1r1', 's1r2'] : ['s1r1', 's1r2', 's2r1', 's2r2'],
      );
    },
  );
});

describe('the docker plan with Kafka brokers', () => {
  const withBrokers = dockerPlan({ shards: 1, replicas: 2, keepers: 1, kafka: 3 }, true, CLIENT_PORT);
  const facts = new Map<string, StartedContainerFacts>(
    withBrokers.containers.map((container) => [
      container.name,
      {
        host: 'localhost',
        mappedPorts: Object.fromEntries(container.exposedPorts.map((port) => [port, enginePort++])),
      },
    ]),
  );
  const described = describeDockerCluster(withBrokers, { runId: 'r', dir: '/tmp/r', clientPort: CLIENT_PORT }, facts);
  const kf2 = withBrokers.containers.find((container) => container.name === 'kf2');
  const toxiproxy = withBrokers.containers.find((container) => container.kind === 'toxiproxy');
  const config = new Map(
    (kf2?.files[0]?.content ?? '').split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );

  it('runs each broker from the official image with the config the local backends use, every broker a voter', () => {
    expect(kf2).toMatchObject({ kind: 'kafka', image: 'apache/kafka:4.1.1', alias: 'kf2' });
    expect(config.get('node.id')).toBe('2');
    expect(config.get('controller.quorum.voters')).toBe(
      `1@kf1:${IN_CONTAINER.kafkaController},2@kf2:${IN_CONTAINER.kafkaController},3@kf3:${IN_CONTAINER.kafkaController}`,
    );
    expect(kf2?.command?.join(' ')).toMatch(
      /kafka-storage\.sh format .* && exec \/opt\/kafka\/bin\/kafka-server-start\.sh/,
    );
  });

  it("tells each replica its own proxy in the toxiproxy container, and the host's producer its own published address", () => {
    const advertised = config.get('advertised.listeners')?.split(',') ?? [];
    const s1r2Proxy = withBrokers.proxies.find((proxy) => proxy.name === 's1r2_kafka_kf2');
    expect(s1r2Proxy?.upstream).toBe(`kf2:${IN_CONTAINER.kafkaClientBase + 1}`);
    expect(advertised).toContain(`CLIENT2://toxiproxy:${s1r2Proxy?.listen.split(':')[1]}`);
    expect(advertised).toContain(`CLIENT3://127.11.0.2:${CLIENT_PORT}`);
    const producerProxy = withBrokers.proxies.find((proxy) => proxy.name === 'producer_kafka_kf2');
    expect(toxiproxy?.publishedPorts).toContainEqual({
      containerPort: Number(producerProxy?.listen.split(':')[1]),
      hostIp: '127.11.0.2',
    });
    expect(withBrokers.proxies.filter((proxy) => proxy.name.includes('_kafka_'))).toHaveLength(9);
  });

  it('describes the brokers as the local backends do: each client its bootstrap address and proxy name', () => {
    expect(described.kafka?.[1]).toEqual({
      name: 'kf2',
      bootstrap: {
        s1r1: `toxiproxy:${IN_CONTAINER.kafkaProxyBase + 100}`,
        s1r2: `toxiproxy:${IN_CONTAINER.kafkaProxyBase + 101}`,
        producer: `127.11.0.2:${CLIENT_PORT}`,
      },
      proxies: { s1r1: 's1r1_kafka_kf2', s1r2: 's1r2_kafka_kf2', producer: 'producer_kafka_kf2' },
    });
  });

  it('without proxies, tells every replica the broker itself and publishes the producer listener on the broker', () => {
    const direct = dockerPlan({ shards: 1, replicas: 1, keepers: 1, kafka: 1 }, false, CLIENT_PORT);
    const kf1 = direct.containers.find((container) => container.name === 'kf1');
    expect(kf1?.files[0]?.content).toContain(`CLIENT1://kf1:${IN_CONTAINER.kafkaClientBase}`);
    expect(kf1?.publishedPorts).toEqual([{ containerPort: IN_CONTAINER.kafkaClientBase + 1, hostIp: '127.11.0.1' }]);
    expect(direct.proxies).toEqual([]);
  });
});
