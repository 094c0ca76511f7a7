import { isIP } from 'node:net';
import type { ClusterDescription, ReplicaDescription } from '../description.ts';
import type { HostPort, ReplicaFacts } from './replica-facts.ts';

/** One way the cluster differs from its file: the first one found is the attach's one-line refusal. */
export interface Mismatch {
  readonly code: string;
  readonly line: string;
}

/** Each proxy's `listen` address, by name, as the Toxiproxy API lists them. */
export type ProxyListens = ReadonlyMap<string, string>;

const unbracket = (host: string) => host.replace(/^\[(.*)\]$/, '$1');
const WILDCARDS = new Set(['', '0.0.0.0', '::']);

/**
 * Whether a peer that connects to `target` reaches a proxy listening on `listen`: the same port,
 * and the same address unless either side is a host name or the proxy listens on every address
 * (names are not resolved: a Kubernetes service name and the proxy's `0.0.0.0` cannot be compared).
 */
export function listensAt(listen: string, target: HostPort): boolean {
  const at = listen.lastIndexOf(':');
  const host = unbracket(listen.slice(0, at));
  const wanted = unbracket(target.host);
  if (Number(listen.slice(at + 1)) !== target.port) return false;
  return WILDCARDS.has(host) || isIP(host) === 0 || isIP(wanted) === 0 || host === wanted;
}

type Check = (replica: ReplicaDescription, facts: ReplicaFacts, proxies: ProxyListens) => Mismatch[];

const layoutOf =
  (description: ClusterDescription): Check =>
  (_replica, facts) => {
    const expected = description.shards.map((shard) => shard.replicas.length);
    const code = 'EXTERNAL_CLUSTER_LAYOUT';
    if (facts.layout.length === 0)
      return [
        {
          code,
          line: `cluster ${description.cluster} is not in system.clusters on ${facts.replica} (remote_servers): the runs' Distributed tables are created on it`,
        },
      ];
    if (facts.layout.join() === expected.join()) return [];
    return [
      {
        code,
        line: `cluster ${description.cluster} on ${facts.replica} has ${facts.layout.length} shard(s) of ${facts.layout.join(', ')} replica(s); the file lists ${expected.length} of ${expected.join(', ')}`,
      },
    ];
  };

const macros: Check = (_replica, facts) => {
  const { shard, replica } = facts.macros;
  if (shard === facts.shard && replica === facts.replica) return [];
  return [
    {
      code: 'EXTERNAL_MACROS',
      line: `${facts.replica} (shard ${facts.shard} in the file) has the macros shard=${shard ?? '(none)'}, replica=${replica ?? '(none)'}: the replicated tables' Keeper paths take {shard} and {replica} from them, so they must be the file's names`,
    },
  ];
};

const client: Check = (replica, facts, proxies) => {
  const code = 'EXTERNAL_CLIENT_WIRING';
  if ('failed' in facts.viaHttp)
    return [
      {
        code,
        line: `a query through ${replica.name}'s \`http\` failed (${facts.viaHttp.failed}): the sinks write there`,
      },
    ];
  if (facts.viaHttp.answer !== replica.name)
    return [
      {
        code,
        line: `${replica.name}'s \`http\` answers as replica ${facts.viaHttp.answer} (getMacro('replica')) and its \`direct_http\` as ${replica.name}: both must reach the same node`,
      },
    ];
  const url = new URL(replica.http);
  const listen = proxies.get(replica.proxies.client) ?? '';
  if (listensAt(listen, { host: url.hostname, port: Number(url.port) })) return [];
  return [
    {
      code,
      line: `proxy ${replica.proxies.client} (proxies.client of ${replica.name}) listens on ${listen}, not at ${replica.name}'s \`http\` (${url.host}): the sinks' traffic would not pass through it`,
    },
  ];
};

const keeper: Check = (replica, facts, proxies) => {
  const code = 'EXTERNAL_KEEPER_WIRING';
  if (facts.keeperLinks === undefined) return [];
  if (facts.keeperLinks.length === 0)
    return [{ code, line: `${replica.name} has no Keeper connection (system.zookeeper_connection is empty)` }];
  const listens = replica.proxies.keepers.map((name) => proxies.get(name) ?? '');
  return facts.keeperLinks
    .filter((link) => !listens.some((listen) => listensAt(listen, link)))
    .map((link) => ({
      code,
      line: `${replica.name} is connected to Keeper at ${link.host}:${link.port}, where none of its proxies.keepers (${replica.proxies.keepers.join(', ')}) listens: a Keeper fault would not cut it`,
    }));
};

const interserver: Check = (replica, facts, proxies) => {
  if (facts.interserver === undefined) return [];
  const listen = proxies.get(replica.proxies.interserver) ?? '';
  if (listensAt(listen, facts.interserver)) return [];
  const { host, port } = facts.interserver;
  return [
    {
      code: 'EXTERNAL_INTERSERVER_WIRING',
      line: `${replica.name} advertises ${host === '' ? '(its host name)' : host}:${port} for replication (interserver_http_host / _port), but its proxy ${replica.proxies.interserver} listens on ${listen}: replication faults would not touch it`,
    },
  ];
};

const logging: Check = (replica, facts) =>
  facts.logging.flatMap((user) => {
    if (user.refused !== undefined)
      return [{ code: 'EXTERNAL_LOGIN', line: `${replica.name} refused ${user.field} ${user.user}: ${user.refused}` }];
    if (user.logQueries === true) return [];
    return [
      {
        code: 'EXTERNAL_LOG_QUERIES',
        line: `log_queries is off for ${user.field} ${user.user} on ${replica.name}: the checkers read the INSERTs from system.query_log; turn it on for that user`,
      },
    ];
  });

/** Each client's link to each broker: its proxy listens where the client bootstraps, or a fault would miss it. */
function kafkaLinks(description: ClusterDescription, proxies: ProxyListens): Mismatch[] {
  return (description.kafka ?? []).flatMap((broker) =>
    Object.entries(broker.bootstrap).flatMap(([clientName, address]) => {
      const proxy = broker.proxies[clientName] ?? '';
      const listen = proxies.get(proxy) ?? '';
      const at = address.lastIndexOf(':');
      if (listensAt(listen, { host: address.slice(0, at), port: Number(address.slice(at + 1)) })) return [];
      return [
        {
          code: 'EXTERNAL_KAFKA_LINK',
          line: `proxy ${proxy} (${clientName}'s link to broker ${broker.name}) listens on ${listen}, not at ${clientName}'s bootstrap address ${address}: a fault on it would not cut that link`,
        },
      ];
    }),
  );
}

/**
 * Every way the cluster differs from its file, check by check (layout, macros, client, Keeper and
 * interserver links, query logging), each over every replica, then each client's link to each
 * Kafka broker. Empty: the file describes this cluster.
 */
export function wiringMismatches(
  description: ClusterDescription,
  proxies: ProxyListens,
  facts: readonly ReplicaFacts[],
): Mismatch[] {
  const replicas = new Map(description.shards.flatMap((shard) => shard.replicas).map((each) => [each.name, each]));
  return [
    ...[layoutOf(description), macros, client, keeper, interserver, logging].flatMap((check) =>
      facts.flatMap((each) => {
        const replica = replicas.get(each.replica);
        return replica === undefined ? [] : check(replica, each, proxies);
      }),
    ),
    ...kafkaLinks(description, proxies),
  ];
}

/** The links the cluster does not show, so attach could not check them: said in every report (backend limits). */
export function uncheckedLinks(facts: readonly ReplicaFacts[]): string[] {
  const unseen = (missing: (each: ReplicaFacts) => boolean) => facts.filter(missing).map((each) => each.replica);
  const keeperless = unseen((each) => each.keeperLinks === undefined);
  const interserverless = unseen((each) => each.interserver === undefined);
  return [
    ...(keeperless.length === 0
      ? []
      : [
          `the Keeper links of ${keeperless.join(', ')} were not checked against proxies.keepers: the server has no system.zookeeper_connection`,
        ]),
    ...(interserverless.length === 0
      ? []
      : [
          `the replication links of ${interserverless.join(', ')} were not checked against proxies.interserver: the server does not show the address it advertises (interserver_http_port is 0)`,
        ]),
  ];
}
