import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClusterFile } from './external-cluster.ts';

const dir = mkdtempSync(join(tmpdir(), 'cluster-file-'));
const replica = (name: string) => ({
  name,
  http: 'http://127.0.0.1:18123',
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
  process_commands: { kill: 'kubectl delete pod {member} --force', start: 'true {member}' },
};

function write(content: unknown, name = `f${Math.random()}`): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('the external cluster file', () => {
  it('accepts what `cluster up` prints, with process command templates', () => {
    expect(readClusterFile(write(VALID)).process_commands?.kill).toContain('{member}');
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
      { ...VALID, process_commands: { reboot: 'x {member}' } },
      /process_commands.reboot is not an action/,
    ],
    [
      'a template without {member}',
      { ...VALID, process_commands: { kill: 'pkill clickhouse' } },
      /process_commands.kill must be a command template containing \{member\}/,
    ],
  ])('refuses %s with one clear line naming the file', (_, content, message) => {
    const file = write(content);
    expect(() => readClusterFile(file)).toThrow(message);
    expect(() => readClusterFile(file)).toThrow(file);
  });
});
