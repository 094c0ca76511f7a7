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
