import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClusterFile } from './cluster-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'cluster-file-'));
const replica = (name: string, host = `127.10.1.${name.at(-1)}`) => ({
  name,
  http: `http://${host}:18123`,
  direct_http: 'http://127.0.0.1:8123',
  tcp: '127.0.0.1:9000',
  proxies: {
    client: `${name}_client`,
    keeper: `${name}_keeper_k1`,
    keepers: [`${name}_keeper_k1`],
    interserver: `${name}_interserver`,
  },
});
const VALID = {
  backend: 'embedded',
  cluster: 'chaos',
  run_id: 'r',
  dir: '/tmp/x',
  toxiproxy: 'http://127.0.0.1:8474',
  proxies_enabled: true,
  keepers: [{ name: 'k1', address: '127.0.0.1:2181' }],
  shards: [{ name: 's1', replicas: [replica('s1r1'), replica('s1r2')] }],
  backend_limits: [],
  process_commands: {
    kill: 'kubectl delete pod "$CHAOS_MEMBER" --force',
    start: 'ssh "$1" systemctl start clickhouse',
  },
};
const withReplica = (changed: Record<string, unknown>) => ({
  ...VALID,
  shards: [{ name: 's1', replicas: [{ ...replica('s1r1'), ...changed }, replica('s1r2')] }],
});

function write(content: unknown, name = `f${Math.random()}`): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const clients = ['s1r1', 's1r2', 'producer'];
const broker = (name: string, changed: Record<string, unknown> = {}) => ({
  name,
  bootstrap: Object.fromEntries(clients.map((client, i) => [client, `kafka-${name}.example:${9092 + i}`])),
  proxies: Object.fromEntries(clients.map((client) => [client, `${client}_kafka_${name}`])),
  ...changed,
});

describe('the external cluster file', () => {
  it('accepts Kafka brokers that give every replica and the producer a bootstrap address and a proxy', () => {
    expect(readClusterFile(write({ ...VALID, kafka: [broker('kf1'), broker('kf2')] })).kafka?.[1]?.name).toBe('kf2');
  });

  it.each([
    ['an empty broker list', [], /`kafka`, when present, must list the brokers/],
    [
      'a broker without the producer',
      [broker('kf1', { bootstrap: { s1r1: 'a:1', s1r2: 'a:2' } })],
      /broker kf1: `bootstrap` must give an address host:port for every replica and for producer; producer has none/,
    ],
    [
      'a replica without its own proxy',
      [broker('kf1', { proxies: { s1r1: 'x', producer: 'y' } })],
      /broker kf1: `proxies` must give a proxy name for every replica and for producer; s1r2 has none/,
    ],
    ['a broker name that is shell text', [broker('kf1;rm')], /kafka\[0\]\.name must be a name matching/],
    ['a broker named as a replica', [broker('s1r2')], /the member name s1r2 appears twice/],
    [
      'one proxy for two clients',
      [broker('kf1', { proxies: { s1r1: 'p', s1r2: 'p', producer: 'q' } })],
      /proxy p is named for s1r1's link to kf1 and for s1r2's link to kf1; each link needs a proxy of its own/,
    ],
  ])('refuses %s', (_case, kafka, message) => {
    expect(() => readClusterFile(write({ ...VALID, kafka }))).toThrow(message);
  });

  it('accepts what `cluster up` prints, with process command templates', () => {
    expect(readClusterFile(write(VALID)).process_commands?.kill).toBe('kubectl delete pod "$CHAOS_MEMBER" --force');
  });

  it('accepts credentials that name the password variable, never the password', () => {
    process.env.CHAOS_TEST_PASSWORD = '';
    const credentials = { user: 'chaos', password_env_var: 'CHAOS_TEST_PASSWORD' };
    expect(readClusterFile(write({ ...VALID, credentials })).credentials).toEqual(credentials);
    delete process.env.CHAOS_TEST_PASSWORD;
  });

  it('accepts the users that carry setting profiles, any of them', () => {
    const setting_users = { quorum_parallel: 'ops_quorum' };
    expect(readClusterFile(write({ ...VALID, setting_users })).setting_users).toEqual(setting_users);
  });

  it.each([
    ['not JSON', '{', /not a readable JSON document/],
    [
      'a setting profile that does not exist',
      { ...VALID, setting_users: { quorum: 'x' } },
      /setting_users.quorum is not a setting profile; the profiles are quorum_sequential, quorum_parallel, view_dedup_off/,
    ],
    ['a setting user without a name', { ...VALID, setting_users: { view_dedup_off: '' } }, /must name a user/],
    ['no shards', { ...VALID, shards: [] }, /`shards` must list at least one shard/],
    [
      'a replica without a URL',
      { ...VALID, shards: [{ name: 's1', replicas: [{ ...replica('s1r1'), direct_http: 'nope' }] }] },
      /replica s1r1: `direct_http` must be a URL/,
    ],
    [
      'a replica name that is shell text',
      withReplica({ name: 's1r1$(touch /tmp/x)' }),
      /shards\[0\]\.replicas\[0\]\.name must be a name matching \^\[A-Za-z0-9\._-\]\+\$ \(the replica macro; names reach shell commands and file names\), got "s1r1\$\(touch \/tmp\/x\)"/,
    ],
    [
      'a replica name that is a path',
      withReplica({ name: '../../x' }),
      /shards\[0\]\.replicas\[0\]\.name must be a name/,
    ],
    [
      'a shard name with a space',
      { ...VALID, shards: [{ name: 's 1', replicas: [replica('s1r1')] }] },
      /shards\[0\]\.name must be a name matching/,
    ],
    [
      'a keeper name with a quote',
      { ...VALID, keepers: [{ name: "k1'", address: '127.0.0.1:2181' }] },
      /keepers\[0\]\.name must be a name matching/,
    ],
    ['a cluster name with a quote', { ...VALID, cluster: "chaos'" }, /cluster must be a name matching/],
    [
      'one member name twice',
      { ...VALID, keepers: [{ name: 's1r2', address: '127.0.0.1:2181' }] },
      /the member name s1r2 appears twice/,
    ],
    [
      'a login in a replica URL',
      withReplica({ direct_http: 'http://chaos:s3cr3t@127.0.0.1:8123' }),
      /replica s1r1: `direct_http` must not carry a login \(user:password@host\): put the user in credentials.user/,
    ],
    [
      'a password in a client URL query',
      withReplica({ http: 'http://127.10.1.1:18123/?password=s3cr3t' }),
      /replica s1r1: `http` must not carry a login in its query \(\?password=\)/,
    ],
    [
      'a user in a client URL query',
      withReplica({ http: 'http://127.10.1.1:18123/?user=chaos' }),
      /`http` must not carry a login in its query \(\?user=\)/,
    ],
    [
      'a login in the Toxiproxy URL',
      { ...VALID, toxiproxy: 'http://admin:s3cr3t@127.0.0.1:8474' },
      /`toxiproxy` must not carry a login/,
    ],
    [
      'client endpoints on two ports',
      withReplica({ http: 'http://127.10.1.1:18124' }),
      /every replica's `http` must use one port .*; the file has 18124, 18123/,
    ],
    [
      'two client endpoints on one host',
      withReplica({ http: 'http://127.10.1.2:18123' }),
      /replicas s1r1 and s1r2 have `http` on one host \(127.10.1.2\)/,
    ],
    [
      'a client endpoint without a port',
      withReplica({ http: 'http://s1r1' }),
      /replica s1r1: `http` must name its port/,
    ],
    [
      "a proxy that is another replica's",
      withReplica({ proxies: { ...replica('s1r1').proxies, client: 's1r2_client' } }),
      /proxy s1r2_client is named by replicas s1r1 and s1r2/,
    ],
    [
      'one proxy for two links of a replica',
      withReplica({ proxies: { ...replica('s1r1').proxies, interserver: 's1r1_client' } }),
      /replica s1r1 names proxy s1r1_client for two of its links/,
    ],
    [
      'a replica without proxies',
      { ...VALID, shards: [{ name: 's1', replicas: [{ ...replica('s1r1'), proxies: {} }] }] },
      /`proxies` must name its client, interserver and keeper proxies/,
    ],
    ['no Toxiproxy', { ...VALID, toxiproxy: null }, /`toxiproxy` must be the URL of the Toxiproxy API/],
    [
      'a keeper without host:port',
      { ...VALID, keepers: [{ name: 'k1', address: 'zk' }] },
      /every keeper needs a `name` and an `address` host:port/,
    ],
    ['a password written in', { ...VALID, password: 'secret' }, /a password never belongs in this file/],
    [
      'a password inside credentials',
      { ...VALID, credentials: { user: 'chaos', password: 'secret' } },
      /credentials.password: a password never belongs in this file/,
    ],
    ['credentials without a user', { ...VALID, credentials: { password_env_var: 'X' } }, /credentials.user must name/],
    [
      'a password variable that is not set',
      { ...VALID, credentials: { user: 'chaos', password_env_var: 'CHAOS_TEST_SURELY_UNSET' } },
      /names CHAOS_TEST_SURELY_UNSET, which is not set/,
    ],
    [
      'a password variable that is no variable name',
      { ...VALID, credentials: { user: 'chaos', password_env_var: '1PASS' } },
      /must be an environment variable name/,
    ],
    [
      'an unknown action',
      { ...VALID, process_commands: { reboot: 'x "$CHAOS_MEMBER"' } },
      /process_commands.reboot is not an action/,
    ],
    [
      'a template written for {member} substitution',
      { ...VALID, process_commands: { kill: 'kubectl delete pod {member} --force' } },
      /process_commands.kill uses \{member\}, which is no longer replaced \(the member is never spliced into shell text\): write "\$CHAOS_MEMBER" in its place/,
    ],
    [
      'a command that names no member',
      { ...VALID, process_commands: { kill: "pkill clickhouse; awk '{print $10}'" } },
      /process_commands.kill must act on one member: reference it as "\$CHAOS_MEMBER" \(or "\$1"\)/,
    ],
  ])('refuses %s with one clear line naming the file', (_, content, message) => {
    const file = write(content);
    expect(() => readClusterFile(file)).toThrow(message);
    expect(() => readClusterFile(file)).toThrow(file);
    expect(() => readClusterFile(file)).not.toThrow(/s3cr3t|\n/);
  });
});
