import type { Logger } from 'pino';
import { harnessClient, resolveCredentials } from '../client.ts';
import { HarnessError } from '../../base/index.ts';
import type { ClusterDescription } from '../description.ts';
import { httpPing, keeperHealthy, waitUntil } from '../health.ts';
import type { MemberState, StartedCluster } from '../started-cluster.ts';
import { PROCESS_ACTIONS, readClusterFile, type ExternalClusterFile, type ProcessAction } from './cluster-file.ts';
import { clipLine, runMemberCommand } from './member-command.ts';
import { redactDescription } from './redact.ts';
import { readReplicaFacts } from './replica-facts.ts';
import { uncheckedLinks, wiringMismatches } from './wiring-checks.ts';
import { kafkaAnswersAt } from '../kafka/api-versions.ts';

export { readClusterFile } from './cluster-file.ts';

export const EXTERNAL_LIMITS = [
  "an external cluster: the harness did not start it; it creates and drops only its own databases, and acts on processes only through the cluster file's command templates",
  'cluster memory is not observed',
];

/**
 * A cluster the harness did not start, driven through its cluster file: health by ping, process
 * actions by the owner's commands (an action without one is refused, and the scenarios that need
 * it are skipped before they start), and `down` leaves everything as found. Its `description` is
 * the redacted one (`redactDescription`): the commands stay in the file, out of every report.
 */
export class ExternalCluster implements StartedCluster {
  readonly description: ClusterDescription;

  constructor(
    private readonly file: ExternalClusterFile,
    private readonly log: Logger,
    limits: readonly string[] = [],
  ) {
    this.description = redactDescription({
      ...file,
      backend_limits: [...(file.backend_limits ?? []), ...EXTERNAL_LIMITS, ...limits],
    });
  }

  get memberNames(): readonly string[] {
    return [
      ...this.description.shards.flatMap((shard) => shard.replicas.map((replica) => replica.name)),
      ...this.description.keepers.map((keeper) => keeper.name),
      ...(this.description.kafka ?? []).map((broker) => broker.name),
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
    const answer = (await this.command('status', status, name)).trim();
    if (answer === 'running' || answer === 'paused' || answer === 'dead') return answer;
    throw new HarnessError(
      'EXTERNAL_STATUS',
      `process_commands.status for ${name} printed '${clipLine(answer, this.password())}'; it must print running, paused or dead`,
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
    // A broker is healthy when it serves a Kafka request where the producer reaches it.
    const broker = this.description.kafka?.find((candidate) => candidate.name === name);
    if (broker !== undefined) return kafkaAnswersAt(broker.bootstrap['producer'] ?? '');
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
    await this.command(action, template, name);
    this.log.info({ member: name, action }, 'external process action done');
  }

  private command(action: string, template: string, member: string): Promise<string> {
    return runMemberCommand({ action, template, member, secret: this.password() });
  }

  /** The cluster's password, read now from its variable, so that no command output repeats it. */
  private password(): string | undefined {
    return resolveCredentials(this.file.credentials).password;
  }
}

/**
 * Attaches to the cluster a file describes, after checking that it is there as described, before
 * anything runs: every replica answers and takes the file's login, the Toxiproxy API has every
 * proxy the file names, and the cluster is wired the way the file says (`wiringMismatches`). The
 * first difference is one line (a HarnessError whose code begins with EXTERNAL_); nothing changes
 * on the cluster.
 */
export async function attachExternalCluster(file: string, log: Logger): Promise<ExternalCluster> {
  const description = readClusterFile(file);
  const replicas = description.shards.flatMap((shard) => shard.replicas);
  const down = (
    await Promise.all(
      replicas.map(async (replica) =>
        (await httpPing(replica.direct_http, 3000)) ? [] : [`${replica.name} (${replica.direct_http})`],
      ),
    )
  ).flat();
  if (down.length > 0)
    throw new HarnessError('EXTERNAL_UNREACHABLE', `${file}: replica(s) ${down.join(', ')} do not answer /ping`);
  await checkLogin(file, description);
  for (const broker of description.kafka ?? []) {
    const address = broker.bootstrap['producer'] ?? '';
    if (!(await kafkaAnswersAt(address, 3000)))
      throw new HarnessError(
        'EXTERNAL_UNREACHABLE',
        `${file}: broker ${broker.name} does not answer a Kafka request at ${address} (its producer bootstrap)`,
      );
  }
  const listens = await proxyListens(file, description);
  const facts = await readReplicaFacts(description).catch((error: unknown) => {
    throw new HarnessError('EXTERNAL_UNREACHABLE', `${file}: ${(error as Error).message}`);
  });
  const [mismatch] = wiringMismatches(description, listens, facts);
  if (mismatch !== undefined) throw new HarnessError(mismatch.code, `${file}: ${mismatch.line}`);
  const unchecked = uncheckedLinks(facts);
  if (unchecked.length > 0) log.warn({ unchecked }, 'links the cluster does not show were not checked');
  return new ExternalCluster(description, log, unchecked);
}

/** Every proxy the file names, with the address it listens on; a name the Toxiproxy lacks is refused. */
async function proxyListens(file: string, description: ClusterDescription): Promise<Map<string, string>> {
  const api = description.toxiproxy ?? '';
  let proxies: Record<string, { listen?: unknown }>;
  try {
    const response = await fetch(new URL('/proxies', api), { signal: AbortSignal.timeout(5000) });
    proxies = (await response.json()) as Record<string, { listen?: unknown }>;
  } catch (error) {
    throw new HarnessError(
      'EXTERNAL_UNREACHABLE',
      `${file}: the Toxiproxy API at ${api} does not answer (${(error as Error).message})`,
    );
  }
  const named = [
    ...description.shards
      .flatMap((shard) => shard.replicas)
      .flatMap((replica) => [replica.proxies.client, replica.proxies.interserver, ...replica.proxies.keepers]),
    ...(description.kafka ?? []).flatMap((broker) => Object.values(broker.proxies)),
  ];
  const missing = named.filter((name) => !(name in proxies));
  if (missing.length > 0)
    throw new HarnessError(
      'EXTERNAL_NO_PROXY',
      `${file}: the Toxiproxy at ${api} has no proxy ${missing.join(', ')}; every link the file names must go through it`,
    );
  return new Map(named.map((name) => [name, String(proxies[name]?.listen ?? '')]));
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
