import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import { harnessClient } from '../../clickhouse/client.ts';
import { HarnessError } from '../../errors.ts';
import { SETTING_PROFILES } from '../config/setting-profiles.ts';
import type { ClusterDescription } from '../description.ts';
import { httpPing, keeperHealthy, waitUntil } from '../health.ts';
import type { MemberState, StartedCluster } from '../started-cluster.ts';

const run = promisify(execFile);

/** What the harness may do to a member, each a shell command template with `{member}` in it. */
export const PROCESS_ACTIONS = ['kill', 'pause', 'resume', 'start'] as const;
export type ProcessAction = (typeof PROCESS_ACTIONS)[number];

/**
 * The cluster file of `--backend external`: the JSON `npm run cluster -- up` prints, plus what only
 * the cluster's owner can say: how to act on its processes.
 */
export interface ExternalClusterFile extends ClusterDescription {
  /** Shell command templates, `{member}` replaced by a member name (`s1r1`, `k1`). */
  readonly process_commands?: Partial<Record<ProcessAction | 'status', string>>;
}

export const EXTERNAL_LIMITS = [
  "an external cluster: the harness did not start it; it creates and drops only its own databases, and acts on processes only through the cluster file's command templates",
  'cluster memory is not observed',
];

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
  if (!Array.isArray(parsed.shards) || parsed.shards.length === 0) fail(file, '`shards` must list at least one shard');
  for (const shard of parsed.shards as unknown[]) {
    if (
      !isObject(shard) ||
      typeof shard.name !== 'string' ||
      !Array.isArray(shard.replicas) ||
      shard.replicas.length === 0
    )
      fail(file, 'every shard needs a `name` and at least one replica');
    for (const replica of shard.replicas as unknown[]) {
      if (!isObject(replica) || typeof replica.name !== 'string')
        fail(file, `shard ${shard.name}: every replica needs a \`name\``);
      for (const field of ['http', 'direct_http']) {
        if (typeof replica[field] !== 'string' || !URL.canParse(replica[field] as string))
          fail(file, `replica ${replica.name}: \`${field}\` must be a URL`);
      }
      if (
        !isObject(replica.proxies) ||
        typeof replica.proxies.client !== 'string' ||
        typeof replica.proxies.interserver !== 'string' ||
        !Array.isArray(replica.proxies.keepers)
      ) {
        fail(file, `replica ${replica.name}: \`proxies\` must name its client, interserver and keeper proxies`);
      }
    }
  }
  if (typeof parsed.toxiproxy !== 'string' || !URL.canParse(parsed.toxiproxy))
    fail(
      file,
      '`toxiproxy` must be the URL of the Toxiproxy API in front of the cluster: every scenario injects network faults through it',
    );
  if (!Array.isArray(parsed.keepers)) fail(file, '`keepers` must list the Keeper members (name, address host:port)');
  for (const keeper of parsed.keepers as unknown[]) {
    if (
      !isObject(keeper) ||
      typeof keeper.name !== 'string' ||
      typeof keeper.address !== 'string' ||
      !/^[^:]+:\d+$/.test(keeper.address)
    )
      fail(file, 'every keeper needs a `name` and an `address` host:port');
  }
  checkCredentials(file, parsed);
  checkSettingUsers(file, parsed);
  if (parsed.process_commands !== undefined) {
    if (!isObject(parsed.process_commands))
      fail(file, '`process_commands` must map kill / pause / resume / start / status to command templates');
    for (const [action, template] of Object.entries(parsed.process_commands)) {
      if (![...PROCESS_ACTIONS, 'status'].includes(action))
        fail(
          file,
          `process_commands.${action} is not an action; the actions are ${[...PROCESS_ACTIONS, 'status'].join(', ')}`,
        );
      if (typeof template !== 'string' || !template.includes('{member}'))
        fail(file, `process_commands.${action} must be a command template containing {member}`);
    }
  }
  return parsed as unknown as ExternalClusterFile;
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

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A cluster the harness did not start, driven through its cluster file: health by ping, process
 * actions by the owner's command templates (an action without one is refused, and the scenarios
 * that need it are skipped before they start), and `down` leaves everything as found.
 */
export class ExternalCluster implements StartedCluster {
  readonly description: ClusterDescription;

  constructor(
    private readonly file: ExternalClusterFile,
    private readonly log: Logger,
  ) {
    this.description = { ...file, backend_limits: [...(file.backend_limits ?? []), ...EXTERNAL_LIMITS] };
  }

  get memberNames(): readonly string[] {
    return [
      ...this.description.shards.flatMap((shard) => shard.replicas.map((replica) => replica.name)),
      ...this.description.keepers.map((keeper) => keeper.name),
    ];
  }

  /** The process actions the file gives a command for. */
  get processActions(): ReadonlySet<ProcessAction> {
    return new Set(PROCESS_ACTIONS.filter((action) => this.file.process_commands?.[action] !== undefined));
  }

  /**
   * A member that answers is running; only one that does not is asked about (paused or dead),
   * when the file says how. Without a `status` template it is `unknown`: a paused member fails
   * its ping like a dead one, and guessing `dead` would start it instead of resuming it.
   */
  async memberState(name: string): Promise<MemberState> {
    if (await this.healthy(name)) return 'running';
    const status = this.file.process_commands?.status;
    if (status === undefined) return 'unknown';
    const answer = (await this.command(status, name)).trim();
    if (answer === 'running' || answer === 'paused' || answer === 'dead') return answer;
    throw new HarnessError(
      'EXTERNAL_STATUS',
      `process_commands.status for ${name} printed '${answer}'; it must print running, paused or dead`,
    );
  }

  async kill(name: string): Promise<void> {
    await this.act('kill', name);
  }

  async stop(name: string): Promise<void> {
    await this.act('kill', name);
  }

  async pause(name: string): Promise<void> {
    await this.act('pause', name);
  }

  async resume(name: string): Promise<void> {
    await this.act('resume', name);
  }

  async start(name: string): Promise<void> {
    await this.act('start', name);
    await this.waitHealthy(name);
  }

  async restart(name: string): Promise<void> {
    await this.kill(name);
    await this.start(name);
  }

  async waitHealthy(name: string, timeoutMs = 60_000): Promise<void> {
    await waitUntil(name, () => this.healthy(name), { timeoutMs });
  }

  async memoryUsage(): Promise<undefined> {
    return undefined;
  }

  /** Nothing to stop: the cluster belongs to its owner. */
  async down(): Promise<void> {
    this.log.info({ cluster: this.description.run_id }, 'leaving the external cluster as it was found');
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.down();
  }

  private async healthy(name: string): Promise<boolean> {
    const replica = this.description.shards
      .flatMap((shard) => shard.replicas)
      .find((candidate) => candidate.name === name);
    if (replica !== undefined) return httpPing(replica.direct_http);
    const keeper = this.description.keepers.find((candidate) => candidate.name === name);
    if (keeper === undefined)
      throw new HarnessError(
        'MEMBER_UNKNOWN',
        `no cluster member named '${name}'; members: ${this.memberNames.join(', ')}`,
      );
    const [host = '', port = ''] = keeper.address.split(':');
    return keeperHealthy(host, Number(port));
  }

  private async act(action: ProcessAction, name: string): Promise<void> {
    if (!this.memberNames.includes(name))
      throw new HarnessError(
        'MEMBER_UNKNOWN',
        `no cluster member named '${name}'; members: ${this.memberNames.join(', ')}`,
      );
    const template = this.file.process_commands?.[action];
    if (template === undefined)
      throw new HarnessError(
        'EXTERNAL_NO_COMMAND',
        `the cluster file gives no process_commands.${action}: the harness cannot ${action} ${name}`,
      );
    await this.command(template, name);
    this.log.info({ member: name, action }, 'external process action done');
  }

  private async command(template: string, member: string): Promise<string> {
    const line = template.replaceAll('{member}', shellQuote(member));
    try {
      return (await run('sh', ['-c', line], { timeout: 120_000 })).stdout;
    } catch (error) {
      throw new HarnessError('EXTERNAL_COMMAND_FAILED', `'${line}' failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}

/**
 * Attaches to the cluster a file describes, after checking that it is there as described: every
 * replica answers, and the Toxiproxy API has every proxy the file names (a scenario would
 * otherwise fail half-way through its first fault).
 */
export async function attachExternalCluster(file: string, log: Logger): Promise<ExternalCluster> {
  const cluster = new ExternalCluster(readClusterFile(file), log);
  const replicas = cluster.description.shards.flatMap((shard) => shard.replicas);
  const down = (
    await Promise.all(
      replicas.map(async (replica) =>
        (await httpPing(replica.direct_http, 3000)) ? [] : [`${replica.name} (${replica.direct_http})`],
      ),
    )
  ).flat();
  if (down.length > 0)
    throw new HarnessError('EXTERNAL_UNREACHABLE', `${file}: replica(s) ${down.join(', ')} do not answer /ping`);
  await checkLogin(file, cluster.description);
  const api = cluster.description.toxiproxy ?? '';
  let proxies: Record<string, unknown>;
  try {
    const response = await fetch(new URL('/proxies', api), { signal: AbortSignal.timeout(5000) });
    proxies = (await response.json()) as Record<string, unknown>;
  } catch (error) {
    throw new HarnessError(
      'EXTERNAL_UNREACHABLE',
      `${file}: the Toxiproxy API at ${api} does not answer (${(error as Error).message})`,
    );
  }
  const named = replicas.flatMap((replica) => [
    replica.proxies.client,
    replica.proxies.interserver,
    ...replica.proxies.keepers,
  ]);
  const missing = named.filter((name) => !(name in proxies));
  if (missing.length > 0)
    throw new HarnessError(
      'EXTERNAL_NO_PROXY',
      `${file}: the Toxiproxy at ${api} has no proxy ${missing.join(', ')}; every link the file names must go through it`,
    );
  return cluster;
}

/** Every replica takes the file's credentials (a ping needs none, every query of a run does). */
async function checkLogin(file: string, description: ClusterDescription): Promise<void> {
  const user = description.credentials?.user ?? 'default';
  for (const replica of description.shards.flatMap((shard) => shard.replicas)) {
    const client = harnessClient(replica.direct_http, { timeoutMs: 5000, credentials: description.credentials });
    try {
      await client.query({ query: 'SELECT 1', format: 'JSONEachRow' }).then((result) => result.json());
    } catch (error) {
      throw new HarnessError(
        'EXTERNAL_LOGIN',
        `${file}: replica ${replica.name} refused user ${user}${description.credentials?.password_env_var ? ` (password from ${description.credentials.password_env_var})` : ''}: ${(error as Error).message.split('\n')[0]}`,
      );
    } finally {
      await client.close();
    }
  }
}
