import { readFileSync } from 'node:fs';
import { HarnessError } from '../../base/index.ts';
import { SETTING_PROFILES } from '../config/setting-profiles.ts';
import type { ClusterDescription } from '../description.ts';
import { checkClientPorts, checkProxyOwners } from './file-layout.ts';

/** What the harness may do to a member, each a shell command that reads the member from `$CHAOS_MEMBER`. */
export const PROCESS_ACTIONS = ['kill', 'pause', 'resume', 'start'] as const;
export type ProcessAction = (typeof PROCESS_ACTIONS)[number];
const COMMANDS: readonly string[] = [...PROCESS_ACTIONS, 'status'];

/**
 * The cluster file of `--backend external`: the JSON `npm run cluster -- up` prints, plus what only
 * the cluster's owner can say: how to act on its processes.
 */
export interface ExternalClusterFile extends ClusterDescription {
  /** Shell commands run as `sh -c <command> sh <member>`, the member also in `$CHAOS_MEMBER`. */
  readonly process_commands?: Partial<Record<ProcessAction | 'status', string>>;
}

/**
 * Member and cluster names reach shell commands (as an argument), file names in the report and
 * SQL (the Distributed table's cluster): plain names only.
 */
export const NAME = /^[A-Za-z0-9._-]+$/;

function fail(file: string, problem: string): never {
  throw new HarnessError('EXTERNAL_CLUSTER_FILE', `${file}: ${problem}`);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads and checks the cluster file: every field the harness will use is there and well-formed. */
export function readClusterFile(file: string): ExternalClusterFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    fail(file, `not a readable JSON document (${(error as Error).message})`);
  }
  if (!isObject(parsed)) fail(file, 'the document must be a JSON object (what `npm run cluster -- up` prints)');
  checkName(file, 'cluster', parsed.cluster, 'the remote_servers cluster the Distributed table is created on');
  if (!Array.isArray(parsed.shards) || parsed.shards.length === 0) fail(file, '`shards` must list at least one shard');
  for (const [s, shard] of (parsed.shards as unknown[]).entries()) {
    if (!isObject(shard) || !Array.isArray(shard.replicas) || shard.replicas.length === 0)
      fail(file, 'every shard needs a `name` and at least one replica');
    checkName(file, `shards[${s}].name`, shard.name, 'the shard macro of its replicas');
    for (const [r, replica] of (shard.replicas as unknown[]).entries()) {
      if (!isObject(replica)) fail(file, `shard ${String(shard.name)}: every replica needs a \`name\``);
      checkName(file, `shards[${s}].replicas[${r}].name`, replica.name, 'the replica macro');
      for (const field of ['http', 'direct_http'])
        checkUrl(file, `replica ${replica.name}: \`${field}\``, replica[field]);
      if (
        !isObject(replica.proxies) ||
        typeof replica.proxies.client !== 'string' ||
        typeof replica.proxies.interserver !== 'string' ||
        !Array.isArray(replica.proxies.keepers) ||
        !replica.proxies.keepers.every((proxy) => typeof proxy === 'string')
      ) {
        fail(file, `replica ${replica.name}: \`proxies\` must name its client, interserver and keeper proxies`);
      }
    }
  }
  checkUrl(
    file,
    '`toxiproxy`',
    parsed.toxiproxy,
    'must be the URL of the Toxiproxy API in front of the cluster: every scenario injects network faults through it',
  );
  if (!Array.isArray(parsed.keepers)) fail(file, '`keepers` must list the Keeper members (name, address host:port)');
  for (const [k, keeper] of (parsed.keepers as unknown[]).entries()) {
    if (!isObject(keeper) || typeof keeper.address !== 'string' || !/^[^:]+:\d+$/.test(keeper.address))
      fail(file, 'every keeper needs a `name` and an `address` host:port');
    checkName(file, `keepers[${k}].name`, keeper.name, 'a Keeper member');
  }
  if (parsed.kafka !== undefined) checkKafka(file, parsed.kafka, parsed.shards as { replicas: { name: string }[] }[]);
  const description = parsed as unknown as ClusterDescription;
  checkDistinctMembers(file, description);
  for (const problem of [checkClientPorts(description), checkProxyOwners(description)])
    if (problem !== undefined) fail(file, problem);
  checkCredentials(file, parsed);
  checkSettingUsers(file, parsed);
  checkProcessCommands(file, parsed.process_commands);
  return parsed as unknown as ExternalClusterFile;
}

function checkName(file: string, field: string, value: unknown, what: string): void {
  if (typeof value !== 'string' || !NAME.test(value))
    fail(
      file,
      `${field} must be a name matching ${NAME.source} (${what}; names reach shell commands and file names), got ${JSON.stringify(value)}`,
    );
}

/** Parameters that carry a login in a ClickHouse or API URL. */
export const CREDENTIAL_PARAMETER = /^(user|username|password|passwd|pwd|pass)$|password|secret|token|api_?key/i;

/**
 * A URL the harness connects to. A login in it (`http://u:pw@host`, `?password=`) would be copied
 * into every report that stores the description; the message never repeats the URL.
 */
function checkUrl(file: string, field: string, value: unknown, expected = 'must be a URL'): void {
  if (typeof value !== 'string' || !URL.canParse(value)) fail(file, `${field} ${expected}`);
  const url = new URL(value);
  const where = 'put the user in credentials.user and the password in the variable credentials.password_env_var names';
  if (url.username !== '' || url.password !== '')
    fail(file, `${field} must not carry a login (user:password@host): ${where}`);
  const parameter = [...url.searchParams.keys()].find((key) => CREDENTIAL_PARAMETER.test(key));
  if (parameter !== undefined) fail(file, `${field} must not carry a login in its query (?${parameter}=): ${where}`);
}

/** Every member has a name of its own: actions and health checks find members by name. */
function checkDistinctMembers(file: string, description: ClusterDescription): void {
  const seen = new Set<string>();
  for (const name of [
    ...description.shards.flatMap((shard) => shard.replicas.map((replica) => replica.name)),
    ...description.keepers.map((keeper) => keeper.name),
    ...(description.kafka ?? []).map((broker) => broker.name),
  ]) {
    if (seen.has(name))
      fail(file, `the member name ${name} appears twice; every replica, keeper and broker needs its own`);
    seen.add(name);
  }
}

/**
 * `kafka` (optional): the brokers, each with every client's bootstrap address (`host:port`) and
 * proxy name, for every replica and for the harness's producer (`producer`): the Kafka engine's
 * faults cut one replica's link to one broker, so each must be its own proxy.
 */
function checkKafka(file: string, kafka: unknown, shards: readonly { replicas: readonly { name: string }[] }[]): void {
  if (!Array.isArray(kafka) || kafka.length === 0)
    fail(file, '`kafka`, when present, must list the brokers (name, bootstrap, proxies)');
  const clients = [...shards.flatMap((shard) => shard.replicas.map((replica) => replica.name)), 'producer'];
  for (const [b, broker] of (kafka as unknown[]).entries()) {
    if (!isObject(broker)) fail(file, `kafka[${b}] must be an object (name, bootstrap, proxies)`);
    checkName(file, `kafka[${b}].name`, broker.name, 'a Kafka broker member');
    for (const field of ['bootstrap', 'proxies'] as const) {
      const map = broker[field];
      const bad = clients.find(
        (client) =>
          !isObject(map) ||
          typeof map[client] !== 'string' ||
          (field === 'bootstrap' && !/^[^:]+:\d+$/.test(map[client] as string)),
      );
      if (bad !== undefined)
        fail(
          file,
          `broker ${String(broker.name)}: \`${field}\` must give ${field === 'bootstrap' ? 'an address host:port' : 'a proxy name'} for every replica and for producer; ${bad} has none`,
        );
    }
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `credentials`: who the harness and the sinks connect as — `user`, and the name of the variable
 * that holds the password (`password_env_var`), which must be set now. A password itself never
 * belongs in the file (it would end up in every report that copies the description).
 */
function checkCredentials(file: string, parsed: Record<string, unknown>): void {
  if ('password' in parsed)
    fail(file, 'a password never belongs in this file: name its environment variable in credentials.password_env_var');
  const credentials = parsed.credentials;
  if (credentials === undefined) return;
  if (!isObject(credentials)) fail(file, '`credentials` must be an object: { "user": ..., "password_env_var": ... }');
  for (const key of Object.keys(credentials)) {
    if (key === 'password')
      fail(
        file,
        'credentials.password: a password never belongs in this file; name its environment variable in credentials.password_env_var',
      );
    if (key !== 'user' && key !== 'password_env_var')
      fail(file, `credentials.${key} is not a field; the fields are user and password_env_var`);
  }
  if (typeof credentials.user !== 'string' || credentials.user === '')
    fail(file, 'credentials.user must name the user to connect as');
  const variable = credentials.password_env_var;
  if (variable === undefined || variable === '') return;
  if (typeof variable !== 'string' || !ENV_NAME.test(variable))
    fail(file, `credentials.password_env_var must be an environment variable name, got ${JSON.stringify(variable)}`);
  if (process.env[variable] === undefined)
    fail(
      file,
      `credentials.password_env_var names ${variable}, which is not set; export it before the run (empty for no password)`,
    );
}

/** `setting_users`: profile -> the user on the cluster whose settings are that profile's (optional, each one). */
function checkSettingUsers(file: string, parsed: Record<string, unknown>): void {
  const users = parsed.setting_users;
  if (users === undefined) return;
  if (!isObject(users))
    fail(file, `\`setting_users\` must map setting profiles (${SETTING_PROFILES.join(', ')}) to user names`);
  for (const [profile, user] of Object.entries(users)) {
    if (!(SETTING_PROFILES as readonly string[]).includes(profile))
      fail(file, `setting_users.${profile} is not a setting profile; the profiles are ${SETTING_PROFILES.join(', ')}`);
    if (typeof user !== 'string' || user === '') fail(file, `setting_users.${profile} must name a user`);
  }
}

/** A command that names the member: `$CHAOS_MEMBER` / `${CHAOS_MEMBER}`, or the first argument `$1` / `${1}`. */
const NAMES_MEMBER = /\$(\{?CHAOS_MEMBER\b|\{?1(?![0-9]))/;

/**
 * `process_commands`: one shell command per action. The member is never spliced into the text:
 * the command reads it from `$CHAOS_MEMBER` (or `$1`), so a template written for `{member}`
 * substitution is refused rather than run with `{member}` left in it.
 */
function checkProcessCommands(file: string, commands: unknown): void {
  if (commands === undefined) return;
  if (!isObject(commands)) fail(file, '`process_commands` must map kill / pause / resume / start / status to commands');
  for (const [action, template] of Object.entries(commands)) {
    if (!COMMANDS.includes(action))
      fail(file, `process_commands.${action} is not an action; the actions are ${COMMANDS.join(', ')}`);
    if (typeof template !== 'string') fail(file, `process_commands.${action} must be a shell command`);
    if (template.includes('{member}'))
      fail(
        file,
        `process_commands.${action} uses {member}, which is no longer replaced (the member is never spliced into shell text): write "$CHAOS_MEMBER" in its place, e.g. kubectl delete pod "$CHAOS_MEMBER" --force`,
      );
    if (!NAMES_MEMBER.test(template))
      fail(file, `process_commands.${action} must act on one member: reference it as "$CHAOS_MEMBER" (or "$1")`);
  }
}
