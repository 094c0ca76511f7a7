import { describe, expect, it } from 'vitest';
import { binaryCommands, binaryKeeperConfig, binaryNodeConfig, BINARY_HOSTS } from '../binary/start-binary.ts';
import type { ClusterState } from '../cluster-state.ts';
import { dockerPlan, TOXIPROXY_ALIAS } from '../docker/docker-plan.ts';
import { DOCKER_IMAGES } from '../docker/images.ts';
import { advertisedInterserver, assignPorts, embeddedNodeConfig, portsNeeded } from '../embedded/start-embedded.ts';
import { EMBEDDED_HOSTS, proxyDefinitions } from '../proxy-wiring.ts';
import type { TopologySpec } from '../topology.ts';
import { describeCluster } from '../description.ts';
import { usersFile } from '../local-addressing.ts';
import { describeProfile, profileUser, SETTING_PROFILES, usersConfig } from './setting-profiles.ts';
import { zooCfg } from './zookeeper-config.ts';
import { toXml } from './xml.ts';

function fakeState(topology: TopologySpec, proxiesEnabled: boolean, separateInterserver = false): ClusterState {
  const state: ClusterState = {
    version: 1,
    runId: 'test-run',
    backend: separateInterserver ? 'binary' : 'embedded',
    dir: '/run',
    createdAt: '2026-01-01T00:00:00.000Z',
    owner: null,
    topology,
    proxiesEnabled,
    toxiproxy: null,
    keepers: [],
    nodes: [],
    ports: [],
  };
  const ports = Array.from({ length: portsNeeded(topology) }, (_, index) => 20000 + index);
  assignPorts(state, topology, ports, separateInterserver);
  return state;
}

const node = (state: ClusterState, name: string) => {
  const found = state.nodes.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no node ${name}`);
  return found;
};

describe('toXml', () => {
  it('repeats arrays, escapes text, drops undefined and writes booleans as 0/1', () => {
    expect(toXml('c', { a: ['x', 'y'], b: 'a<b&c', skip: undefined, on: true })).toBe(
      '<?xml version="1.0"?>\n<c>\n  <a>x</a>\n  <a>y</a>\n  <b>a&lt;b&amp;c</b>\n  <on>1</on>\n</c>\n',
    );
  });
});

describe('embedded node config', () => {
  const state = fakeState({ shards: 2, replicas: 2, keepers: 1 }, true);
  const s1r2 = node(state, 's1r2');
  const xml = embeddedNodeConfig(state, s1r2);

  it('gives every port once, except the client proxies sharing one port on their own addresses', () => {
    const clientPorts = new Set(state.nodes.map((n) => n.proxyPorts.client));
    expect(clientPorts.size).toBe(1);
    expect(state.nodes.map((n) => n.clientHost)).toEqual(['127.10.1.1', '127.10.1.2', '127.10.2.1', '127.10.2.2']);
    const all = [
      ...clientPorts,
      ...state.keepers.flatMap((k) => [k.clientPort, k.peerPort, k.electionPort]),
      ...state.nodes.flatMap((n) => [
        n.httpPort,
        n.tcpPort,
        n.proxyPorts.interserver,
        ...Object.values(n.proxyPorts.keepers),
      ]),
    ];
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(portsNeeded(state.topology));
  });

  it('listens on both loopback addresses and names its shard, replica and own Keeper session path', () => {
    expect(xml).toContain('<listen_host>127.0.0.1</listen_host>\n  <listen_host>127.0.0.2</listen_host>');
    expect(xml).toMatch(/<macros>\s*<cluster>chaos<\/cluster>\s*<shard>s1<\/shard>\s*<replica>s1r2<\/replica>/);
    expect(xml).toContain('<sessions_path>/clickhouse/sessions_s1r2</sessions_path>');
    expect(xml).toContain('<query_log>');
    expect(xml).toContain('<part_log>');
    expect(xml).toContain('<zookeeper_log>');
    // Wide parts only: a compact-part failpoint must not fail the oracle's log flushes.
    expect(xml).toMatch(/<query_log>[^]*?<settings>min_bytes_for_wide_part = 0,[^<]*<\/settings>[^]*?<\/query_log>/);
    // Retired log parts leave after 30 s, not 8 minutes: the data directories live in memory.
    for (const log of ['query_log', 'part_log', 'zookeeper_log'])
      expect(xml).toMatch(new RegExp(`<${log}>[^]*?<settings>[^<]*old_parts_lifetime = 30</settings>[^]*?</${log}>`));
    expect(xml).not.toContain('interserver_http_port');
  });

  it('reaches Keeper through its own proxy and advertises its interserver proxy', () => {
    expect(xml).toContain(`<port>${s1r2.proxyPorts.keepers.k1}</port>`);
    expect(advertisedInterserver(state, s1r2)).toEqual({ host: '127.0.0.1', port: s1r2.proxyPorts.interserver });
    const direct = fakeState({ shards: 1, replicas: 1, keepers: 1 }, false);
    const s1r1 = node(direct, 's1r1');
    expect(advertisedInterserver(direct, s1r1)).toEqual({ host: '127.0.0.2', port: s1r1.httpPort });
    expect(embeddedNodeConfig(direct, s1r1)).toContain(`<port>${direct.keepers[0]?.clientPort}</port>`);
  });

  it("gives the Kafka engine's consumers the broker's smallest session timeout, so a member gone is replaced in seconds", () => {
    expect(xml).toContain(
      '<kafka>\n    <session_timeout_ms>6000</session_timeout_ms>\n    <heartbeat_interval_ms>1000</heartbeat_interval_ms>',
    );
  });

  it("retries a replicated table's first Keeper contact every second, not every minute", () => {
    expect(xml).toContain('<merge_tree>\n    <initialization_retry_period>1</initialization_retry_period>');
  });

  it("holds a second storage policy, its disk inside the node's own data directory, for the staged scenarios' refusal", () => {
    expect(xml).toContain(`<path>${s1r2.dataDir}/harness_apart_disk/</path>`);
    expect(xml).toMatch(/<harness_apart>\s*<volumes>\s*<main>\s*<disk>harness_apart_disk<\/disk>/);
  });

  it('lists every replica of every shard in remote_servers by native port', () => {
    for (const member of state.nodes) expect(xml).toContain(`<port>${member.tcpPort}</port>`);
    expect(xml.match(/<shard>\s*<internal_replication>1<\/internal_replication>/g)).toHaveLength(2);
  });

  it('puts every link behind a named proxy', () => {
    const definitions = proxyDefinitions(state, EMBEDDED_HOSTS);
    expect(definitions.map((d) => d.name)).toEqual(
      ['s1r1', 's1r2', 's2r1', 's2r2'].flatMap((name) => [
        `${name}_client`,
        `${name}_interserver`,
        `${name}_keeper_k1`,
      ]),
    );
    expect(definitions.find((d) => d.name === 's1r2_client')?.listen).toBe(`127.10.1.2:${s1r2.proxyPorts.client}`);
    expect(definitions.find((d) => d.name === 's1r2_interserver')).toEqual({
      name: 's1r2_interserver',
      listen: `127.0.0.1:${s1r2.proxyPorts.interserver}`,
      upstream: `127.0.0.2:${s1r2.httpPort}`,
      enabled: true,
    });
  });
});

describe('setting-profile users', () => {
  it('gives every local node a users file of its own: default, and one user per profile', () => {
    const state = fakeState({ shards: 2, replicas: 3, keepers: 1 }, true);
    const s1r2 = node(state, 's1r2');
    expect(embeddedNodeConfig(state, s1r2)).toContain(`<users_config>/run/nodes/s1r2/users.xml</users_config>`);
    expect(usersFile(s1r2)).toBe('/run/nodes/s1r2/users.xml');
    const users = usersConfig(3, { withDefault: true });
    expect(users).toMatch(/<users>\s*<default>\s*<password><\/password>/);
    for (const profile of SETTING_PROFILES) expect(users).toContain(`<${profileUser(profile)}>`);
    // The quorum is every replica of a shard: a fault on any sibling keeps it from being met.
    expect(users).toMatch(
      /<quorum_sequential>\s*<insert_quorum>3<\/insert_quorum>\s*<insert_quorum_parallel>0<\/insert_quorum_parallel>\s*<insert_quorum_timeout>2000<\/insert_quorum_timeout>/,
    );
    expect(users).toMatch(/<quorum_parallel>\s*<insert_quorum>3<\/insert_quorum>\s*<insert_quorum_parallel>1</);
    expect(users).toMatch(
      /<view_dedup_off>\s*<deduplicate_blocks_in_dependent_materialized_views>0<\/deduplicate_blocks_in_dependent_materialized_views>/,
    );
    // A commit that lost its Keeper session is answered 319 within the sink's timeout, not after ~143 s.
    expect(users).toMatch(
      /<keeper_retries_short>\s*<insert_keeper_max_retries>2<\/insert_keeper_max_retries>\s*<insert_keeper_retry_max_backoff_ms>200</,
    );
  });

  it('leaves the official image its own users.xml and default user, adding the profile users beside them', () => {
    const plan = dockerPlan({ shards: 1, replicas: 2, keepers: 1 }, true);
    const files = plan.containers.find((c) => c.name === 's1r1')?.files ?? [];
    const users = files.find((file) => file.target === '/etc/clickhouse-server/users.d/zz-chaos-users.xml');
    expect(users?.content).toContain('<chaos_quorum_parallel>');
    expect(users?.content).not.toContain('<default>');
    expect(files[0]?.content).not.toContain('users_config');
  });

  it('is described by every started cluster, and reads in a report as its settings', () => {
    expect(describeCluster(fakeState({ shards: 1, replicas: 2, keepers: 1 }, true)).setting_users).toEqual({
      quorum_sequential: 'chaos_quorum_sequential',
      quorum_parallel: 'chaos_quorum_parallel',
      view_dedup_off: 'chaos_view_dedup_off',
      keeper_retries_short: 'chaos_keeper_retries_short',
    });
    expect(describeProfile('quorum_parallel', 2)).toBe(
      'insert_quorum = 2, insert_quorum_parallel = 1, insert_quorum_timeout = 2000',
    );
  });
});

describe('zoo.cfg', () => {
  const ensemble = [1, 2, 3].map((id) => ({
    keeper: { name: `k${id}`, id },
    ports: { client: 100 + id, peer: 200 + id, election: 300 + id },
  }));
  it('is standalone for one Keeper', () => {
    const cfg = zooCfg(ensemble[0]!, '/data', [ensemble[0]!]);
    expect(cfg).toContain('clientPort=101\n');
    expect(cfg).toContain('4lw.commands.whitelist=*');
    expect(cfg).not.toContain('server.');
  });
  it('lists every member of an ensemble by id', () => {
    const cfg = zooCfg(ensemble[1]!, '/data', ensemble);
    expect(cfg).toContain('clientPort=102\n');
    expect(cfg).toContain('server.1=127.0.0.1:201:301\nserver.2=127.0.0.1:202:302\nserver.3=127.0.0.1:203:303');
  });
});

describe('binary backend', () => {
  const state = fakeState({ shards: 1, replicas: 2, keepers: 3 }, true, true);
  const s1r1 = node(state, 's1r1');

  it('listens for replication on 127.0.0.2 behind a proxy of the same port on 127.0.0.1', () => {
    const xml = binaryNodeConfig(state, s1r1);
    expect(s1r1.proxyPorts.interserver).toBe(s1r1.interserverPort);
    expect(xml).toContain(`<interserver_http_port>${s1r1.interserverPort}</interserver_http_port>`);
    expect(xml).toContain('<interserver_http_host>127.0.0.1</interserver_http_host>');
    expect(xml).toContain('<interserver_listen_host>127.0.0.2</interserver_listen_host>');
    expect(proxyDefinitions(state, BINARY_HOSTS).find((d) => d.name === 's1r1_interserver')?.upstream).toBe(
      `127.0.0.2:${s1r1.interserverPort}`,
    );
    expect(xml.match(/<node>/g)).toHaveLength(3);
  });

  it('runs `clickhouse server` and `clickhouse keeper` with the generated configs', () => {
    expect(binaryCommands('/usr/bin/clickhouse', '/run/s1r1.xml', 'server')).toEqual([
      '/usr/bin/clickhouse',
      'server',
      '--config-file=/run/s1r1.xml',
    ]);
    expect(binaryCommands('/usr/bin/clickhouse', '/run/k1.xml', 'keeper')).toEqual([
      '/usr/bin/clickhouse',
      'keeper',
      '--config-file=/run/k1.xml',
    ]);
    const keeperXml = binaryKeeperConfig(state, state.keepers[1]!);
    expect(keeperXml).toContain('<server_id>2</server_id>');
    expect(keeperXml.match(/<server>/g)).toHaveLength(3);
  });
});

describe('docker plan', () => {
  const plan = dockerPlan({ shards: 2, replicas: 2, keepers: 1 });

  it('uses the pinned official images, one alias per member', () => {
    expect(plan.containers.map((c) => [c.name, c.image])).toEqual([
      ['k1', DOCKER_IMAGES.keeper],
      ['s1r1', DOCKER_IMAGES.clickhouse],
      ['s1r2', DOCKER_IMAGES.clickhouse],
      ['s2r1', DOCKER_IMAGES.clickhouse],
      ['s2r2', DOCKER_IMAGES.clickhouse],
      ['toxiproxy', DOCKER_IMAGES.toxiproxy],
    ]);
    expect(DOCKER_IMAGES.toxiproxy).toBe('ghcr.io/shopify/toxiproxy:2.12.0');
  });

  it('routes Keeper and replication through the toxiproxy container and exposes the client proxies', () => {
    const s2r1 = plan.containers.find((c) => c.name === 's2r1');
    const config = s2r1?.files[0]?.content ?? '';
    expect(config).toContain(`<host>${TOXIPROXY_ALIAS}</host>`);
    expect(config).toContain(`<interserver_http_host>${TOXIPROXY_ALIAS}</interserver_http_host>`);
    expect(config).toContain('<interserver_http_port>9102</interserver_http_port>');
    expect(plan.proxies.find((p) => p.name === 's2r1_interserver')).toMatchObject({
      listen: '0.0.0.0:9102',
      upstream: 's2r1:9102',
    });
    expect(plan.proxies.find((p) => p.name === 's2r1_keeper_k1')).toMatchObject({ upstream: 'k1:9181' });
    const toxiproxy = plan.containers.find((c) => c.kind === 'toxiproxy');
    expect(toxiproxy?.exposedPorts).toEqual([8474]);
    expect(toxiproxy?.publishedPorts).toEqual(Object.values(plan.clientProxies));
    // The real Toxiproxy serves its proxy byte counters only with this flag; the chaos faults read them.
    expect(toxiproxy?.command).toEqual(['-host=0.0.0.0', '-proxy-metrics']);
  });

  it('wires members directly when proxies are off', () => {
    const direct = dockerPlan({ shards: 1, replicas: 1, keepers: 1 }, false);
    expect(direct.proxies).toEqual([]);
    expect(direct.containers.some((c) => c.kind === 'toxiproxy')).toBe(false);
    const config = direct.containers.find((c) => c.name === 's1r1')?.files[0]?.content ?? '';
    expect(config).toContain('<host>k1</host>');
    expect(config).toContain('<interserver_http_host>s1r1</interserver_http_host>');
  });
});
