import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { describeError, HarnessError } from '../base/index.ts';
import { installInterrupt } from './interrupt.ts';
import {
  attachCluster,
  checkRunDir,
  type ClusterDescription,
  currentClusterDir,
  DEFAULT_TOPOLOGY,
  downDetachedDocker,
  isAlive,
  parseBackend,
  parseProxyServer,
  readHolder,
  registeredRunDirs,
  type RunDirFate,
  startCluster,
  StartedLocalCluster,
  pointCurrentAt,
  upDetachedDocker,
} from '../cluster/index.ts';

const USAGE = `usage: npm run cluster -- up [--shards N] [--replicas M] [--keepers K] [--shard-names A,B,..] [--kafka 0|1|3] [--backend embedded|docker|binary]
                              [--dir DIR] [--no-proxies] [--proxy builtin|toxiproxy] [--toxiproxy-port P] [--seed N]
       npm run cluster -- status [--dir DIR]
       npm run cluster -- down [--dir DIR | --all]
       npm run cluster -- member kill|pause|resume|start|status NAME [--dir DIR]`;

function wholeNumber(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new HarnessError('CLI_USAGE', `--${name} takes a whole number, got '${value}'`);
  return Number(value);
}

async function up(values: Record<string, string | boolean | undefined>): Promise<void> {
  const backend = parseBackend(String(values.backend ?? 'embedded'));
  const proxyServer = parseProxyServer(values.proxy as string | undefined, backend);
  const toxiproxyPort =
    values['toxiproxy-port'] === undefined
      ? undefined
      : wholeNumber('toxiproxy-port', String(values['toxiproxy-port']), 0);
  const dir = values.dir === undefined ? undefined : resolve(String(values.dir));
  // Refused before anything starts: the harness takes only a directory it may later delete from.
  if (dir !== undefined) checkRunDir(dir);
  const options = {
    topology: {
      shards: wholeNumber('shards', values.shards as string | undefined, DEFAULT_TOPOLOGY.shards),
      replicas: wholeNumber('replicas', values.replicas as string | undefined, DEFAULT_TOPOLOGY.replicas),
      keepers: wholeNumber('keepers', values.keepers as string | undefined, DEFAULT_TOPOLOGY.keepers),
      ...(values['shard-names'] === undefined ? {} : { shardNames: String(values['shard-names']).split(',') }),
      ...(values.kafka === undefined ? {} : { kafka: wholeNumber('kafka', String(values.kafka), 0) }),
    },
    dir,
    proxies: values['no-proxies'] !== true,
    proxyServer,
    toxiproxyPort,
    seed: values.seed === undefined ? undefined : wholeNumber('seed', String(values.seed), 0),
  };
  let description: ClusterDescription;
  if (backend === 'docker') {
    description = await upDetachedDocker(options);
  } else {
    // Until the cluster is handed over, a signal tears down whatever part of it is up.
    const interrupt = installInterrupt({ name: 'cluster', graceMs: 0 });
    const cluster = await interrupt.guard(startCluster(backend, options));
    if (cluster instanceof StartedLocalCluster) cluster.handOver();
    interrupt.dispose();
    description = cluster.description;
  }
  pointCurrentAt(description.dir);
  process.stdout.write(`${JSON.stringify(description)}\n`);
}

async function status(dir: string | undefined): Promise<void> {
  const holder = readHolder(dir ?? currentClusterDir());
  if (holder !== undefined) {
    process.stdout.write(
      `${JSON.stringify({ ...holder.description, holder: isAlive(holder.holder) ? 'running' : 'dead' })}\n`,
    );
    return;
  }
  const cluster = attachCluster(dir);
  const members = Object.fromEntries(
    await Promise.all(cluster.memberNames.map(async (name) => [name, await cluster.memberState(name)])),
  );
  process.stdout.write(`${JSON.stringify({ ...cluster.description, members })}\n`);
}

/** What became of a run directory, as `down` prints it. */
const describeFate = (directory: RunDirFate): string =>
  directory.fate === 'removed' ? 'removed' : `${directory.fate}: ${directory.reason}`;

async function down(dir: string | undefined, all: boolean): Promise<void> {
  const dirs = all ? registeredRunDirs() : [dir ?? currentClusterDir()];
  for (const runDir of dirs) {
    const holder = readHolder(runDir);
    if (holder !== undefined) {
      const directory = await downDetachedDocker(holder);
      process.stdout.write(
        `${JSON.stringify({ down: holder.runId, dir: runDir, directory: describeFate(directory) })}\n`,
      );
      continue;
    }
    const cluster = attachCluster(runDir);
    const directory = await cluster.teardown();
    process.stdout.write(
      `${JSON.stringify({ down: cluster.description.run_id, dir: cluster.description.dir, directory: describeFate(directory) })}\n`,
    );
  }
}

/**
 * One process action on one member, from any shell: what an external cluster file's
 * process_commands call when the cluster is one `up` started (kill -9 / SIGSTOP / SIGCONT / a
 * fresh start that waits for health; status prints running, paused or dead).
 */
async function member(action: string | undefined, name: string | undefined, dir: string | undefined): Promise<void> {
  if (name === undefined) throw new HarnessError('CLI_USAGE', `member needs an action and a member name\n${USAGE}`);
  const cluster = attachCluster(dir);
  switch (action) {
    case 'kill':
      return cluster.kill(name);
    case 'pause':
      return cluster.pause(name);
    case 'resume':
      return cluster.resume(name);
    case 'start':
      return cluster.start(name);
    case 'status':
      process.stdout.write(`${await cluster.memberState(name)}\n`);
      return;
    default:
      throw new HarnessError(
        'CLI_USAGE',
        `unknown member action '${action}'; the actions are kill, pause, resume, start, status`,
      );
  }
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      shards: { type: 'string' },
      replicas: { type: 'string' },
      keepers: { type: 'string' },
      'shard-names': { type: 'string' },
      kafka: { type: 'string' },
      backend: { type: 'string' },
      dir: { type: 'string' },
      'no-proxies': { type: 'boolean' },
      proxy: { type: 'string' },
      all: { type: 'boolean' },
      'toxiproxy-port': { type: 'string' },
      seed: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === 'member') return member(rest[0], rest[1], values.dir);
  if (rest.length > 0) throw new HarnessError('CLI_USAGE', `unexpected argument '${rest[0]}'\n${USAGE}`);
  switch (command) {
    case 'up':
      return up(values);
    case 'status':
      return status(values.dir);
    case 'down':
      return down(values.dir, values.all === true);
    default:
      throw new HarnessError(
        'CLI_USAGE',
        `${command === undefined ? 'missing command' : `unknown command '${command}'`}\n${USAGE}`,
      );
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`cluster: ${describeError(error)}\n`);
    process.exit(2);
  },
);
