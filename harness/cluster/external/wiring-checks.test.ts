import { describe, expect, it } from 'vitest';
import type { ClusterDescription, ReplicaDescription } from '../description.ts';
import type { ReplicaFacts } from './replica-facts.ts';
import { listensAt, uncheckedLinks, wiringMismatches } from './wiring-checks.ts';

// A 1x2 cluster as a file describes it, and what a correctly wired cluster says about itself;
// each case changes one fact the way a mis-wired cluster would.
const replica = (name: string, last: number): ReplicaDescription => ({
  name,
  http: `http://127.10.1.${last}:8123`,
  direct_http: `http://127.0.0.1:900${last}`,
  tcp: `127.0.0.1:910${last}`,
  proxies: {
    client: `${name}_client`,
    keeper: `${name}_keeper_k1`,
    keepers: [`${name}_keeper_k1`],
    interserver: `${name}_interserver`,
  },
});
const description: ClusterDescription = {
  backend: 'embedded',
  cluster: 'prod',
  run_id: 'r',
  dir: '',
  toxiproxy: 'http://127.0.0.1:8474',
  proxies_enabled: true,
  keepers: [{ name: 'k1', address: '127.0.0.1:2181' }],
  shards: [{ name: 's1', replicas: [replica('s1r1', 1), replica('s1r2', 2)] }],
  backend_limits: [],
};
const listens = new Map([
  ['s1r1_client', '127.10.1.1:8123'],
  ['s1r2_client', '127.10.1.2:8123'],
  ['s1r1_keeper_k1', '127.0.0.1:2001'],
  ['s1r2_keeper_k1', '127.0.0.1:2002'],
  ['s1r1_interserver', '0.0.0.0:9011'],
  ['s1r2_interserver', '0.0.0.0:9012'],
]);
const facts = (name: string, last: number, changed: Partial<ReplicaFacts> = {}): ReplicaFacts => ({
  shard: 's1',
  replica: name,
  layout: [2],
  macros: { shard: 's1', replica: name },
  viaHttp: { answer: name },
  keeperLinks: [{ host: '127.0.0.1', port: 2000 + last }],
  interserver: { host: 'toxiproxy', port: 9010 + last },
  logging: [
    { field: 'credentials.user', user: 'chaos', logQueries: true },
    { field: 'setting_users.quorum_parallel', user: 'chaos_qp', logQueries: true },
  ],
  ...changed,
});
const mismatches = (changed: Partial<ReplicaFacts>) =>
  wiringMismatches(description, listens, [facts('s1r1', 1, changed), facts('s1r2', 2)]);

describe('the cluster held against its file', () => {
  it('finds nothing to say about a cluster wired as its file says', () => {
    expect(wiringMismatches(description, listens, [facts('s1r1', 1), facts('s1r2', 2)])).toEqual([]);
  });

  it.each<[string, Partial<ReplicaFacts>, string, RegExp]>([
    [
      'the cluster missing from system.clusters',
      { layout: [] },
      'EXTERNAL_CLUSTER_LAYOUT',
      /^cluster prod is not in system.clusters on s1r1 \(remote_servers\)/,
    ],
    [
      'another layout',
      { layout: [1, 1] },
      'EXTERNAL_CLUSTER_LAYOUT',
      /^cluster prod on s1r1 has 2 shard\(s\) of 1, 1 replica\(s\); the file lists 1 of 2$/,
    ],
    [
      'another replica macro',
      { macros: { shard: 's1', replica: 'r1' } },
      'EXTERNAL_MACROS',
      /^s1r1 \(shard s1 in the file\) has the macros shard=s1, replica=r1/,
    ],
    ['no shard macro', { macros: { replica: 's1r1' } }, 'EXTERNAL_MACROS', /shard=\(none\), replica=s1r1/],
    [
      'http reaching another node',
      { viaHttp: { answer: 's1r2' } },
      'EXTERNAL_CLIENT_WIRING',
      /^s1r1's `http` answers as replica s1r2 \(getMacro\('replica'\)\) and its `direct_http` as s1r1/,
    ],
    [
      'http not answering',
      { viaHttp: { failed: 'connect ECONNREFUSED' } },
      'EXTERNAL_CLIENT_WIRING',
      /^a query through s1r1's `http` failed \(connect ECONNREFUSED\)/,
    ],
    [
      'a Keeper connection that bypasses its proxies',
      { keeperLinks: [{ host: '127.0.0.1', port: 2181 }] },
      'EXTERNAL_KEEPER_WIRING',
      /^s1r1 is connected to Keeper at 127.0.0.1:2181, where none of its proxies.keepers \(s1r1_keeper_k1\) listens/,
    ],
    [
      "a Keeper connection through another replica's proxy",
      { keeperLinks: [{ host: '127.0.0.1', port: 2002 }] },
      'EXTERNAL_KEEPER_WIRING',
      /Keeper at 127.0.0.1:2002/,
    ],
    ['no Keeper connection', { keeperLinks: [] }, 'EXTERNAL_KEEPER_WIRING', /^s1r1 has no Keeper connection/],
    [
      "an interserver address on another replica's proxy",
      { interserver: { host: 'toxiproxy', port: 9012 } },
      'EXTERNAL_INTERSERVER_WIRING',
      /^s1r1 advertises toxiproxy:9012 for replication .* but its proxy s1r1_interserver listens on 0.0.0.0:9011/,
    ],
    [
      'an interserver address of its own host name, off the proxy port',
      { interserver: { host: '', port: 9009 } },
      'EXTERNAL_INTERSERVER_WIRING',
      /advertises \(its host name\):9009/,
    ],
    [
      'a setting user without query logging',
      {
        logging: [
          { field: 'credentials.user', user: 'chaos', logQueries: true },
          { field: 'setting_users.quorum_parallel', user: 'chaos_qp', logQueries: false },
        ],
      },
      'EXTERNAL_LOG_QUERIES',
      /^log_queries is off for setting_users.quorum_parallel chaos_qp on s1r1: the checkers read the INSERTs from system.query_log/,
    ],
    [
      'a setting user the replica refuses',
      { logging: [{ field: 'setting_users.quorum_parallel', user: 'chaos_qp', refused: 'Authentication failed' }] },
      'EXTERNAL_LOGIN',
      /^s1r1 refused setting_users.quorum_parallel chaos_qp: Authentication failed$/,
    ],
  ])('says so, first, for %s', (_, changed, code, line) => {
    const [first] = mismatches(changed);
    expect(first?.code).toBe(code);
    expect(first?.line).toMatch(line);
  });

  it("says so for a client proxy that is another replica's, though its port is the shared one", () => {
    const swapped = new Map([...listens, ['s1r1_client', '127.10.1.2:8123']]);
    const [first] = wiringMismatches(description, swapped, [facts('s1r1', 1), facts('s1r2', 2)]);
    expect(first).toEqual({
      code: 'EXTERNAL_CLIENT_WIRING',
      line: "proxy s1r1_client (proxies.client of s1r1) listens on 127.10.1.2:8123, not at s1r1's `http` (127.10.1.1:8123): the sinks' traffic would not pass through it",
    });
  });

  it('names the links the cluster does not show, which attach could not check', () => {
    const hidden = { keeperLinks: undefined, interserver: undefined };
    const seen = [facts('s1r1', 1, hidden), facts('s1r2', 2, hidden)];
    expect(wiringMismatches(description, listens, seen)).toEqual([]);
    expect(uncheckedLinks(seen)).toEqual([
      'the Keeper links of s1r1, s1r2 were not checked against proxies.keepers: the server has no system.zookeeper_connection',
      'the replication links of s1r1, s1r2 were not checked against proxies.interserver: the server does not show the address it advertises (interserver_http_port is 0)',
    ]);
    expect(uncheckedLinks([facts('s1r1', 1)])).toEqual([]);
  });
});

describe("each client's link to each Kafka broker", () => {
  const kafka = [
    {
      name: 'kf1',
      bootstrap: { s1r1: '127.0.0.1:30001', s1r2: '127.0.0.1:30002', producer: '127.0.0.1:30003' },
      proxies: { s1r1: 's1r1_kafka_kf1', s1r2: 's1r2_kafka_kf1', producer: 'producer_kafka_kf1' },
    },
  ];
  const withBrokers = (listen: string) =>
    wiringMismatches(
      { ...description, kafka },
      new Map([
        ...listens,
        ['s1r1_kafka_kf1', '127.0.0.1:30001'],
        ['s1r2_kafka_kf1', listen],
        ['producer_kafka_kf1', '0.0.0.0:30003'],
      ]),
      [facts('s1r1', 1), facts('s1r2', 2)],
    );

  it('finds nothing to say when every proxy listens where its client bootstraps', () => {
    expect(withBrokers('127.0.0.1:30002')).toEqual([]);
  });

  it('refuses a proxy that listens elsewhere: a fault on it would not cut the link', () => {
    expect(withBrokers('127.0.0.1:30009')).toEqual([
      {
        code: 'EXTERNAL_KAFKA_LINK',
        line: "proxy s1r2_kafka_kf1 (s1r2's link to broker kf1) listens on 127.0.0.1:30009, not at s1r2's bootstrap address 127.0.0.1:30002: a fault on it would not cut that link",
      },
    ]);
  });
});

describe('a proxy listening where a peer connects', () => {
  it.each([
    ['127.10.1.1:8123', '127.10.1.1', 8123, true],
    ['127.10.1.2:8123', '127.10.1.1', 8123, false],
    ['127.10.1.1:8124', '127.10.1.1', 8123, false],
    ['0.0.0.0:8123', '10.0.0.7', 8123, true],
    ['[::]:8123', '10.0.0.7', 8123, true],
    ['127.0.0.1:8123', 'toxiproxy', 8123, true],
    ['toxiproxy:8123', '10.0.0.7', 8123, true],
    ['[::1]:8123', '[::1]', 8123, true],
  ])('%s for %s:%d: %s', (listen, host, port, expected) => {
    expect(listensAt(listen, { host, port })).toBe(expected);
  });
});
