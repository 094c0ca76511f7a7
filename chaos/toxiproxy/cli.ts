import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { describeError, HarnessError } from '../../harness/base/index.ts';
import type { ProxyDefinition } from './proxy-collection.ts';
import { startToxiproxyServer } from './server.ts';

const USAGE =
  'usage: npm run toxiproxy -- [--host 127.0.0.1] [--port 8474] [--config proxies.json] [--seed N] [--proxy-metrics]';

interface CliOptions {
  host?: string;
  port?: number;
  config?: ProxyDefinition[];
  seed?: number;
  proxyMetrics?: boolean;
}

function integer(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new HarnessError(
      'TOXIPROXY_BAD_FLAG',
      `--${name} must be an integer in [${min}, ${max}], got '${text}'; ${USAGE}`,
    );
  }
  return value;
}

async function readConfig(path: string): Promise<ProxyDefinition[]> {
  let text;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new HarnessError('TOXIPROXY_CONFIG_UNREADABLE', `cannot read config ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new HarnessError('TOXIPROXY_CONFIG_UNREADABLE', `config ${path} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!Array.isArray(parsed)) {
    throw new HarnessError(
      'TOXIPROXY_CONFIG_UNREADABLE',
      `config ${path} must be a JSON array of {name, listen, upstream, enabled?}`,
    );
  }
  return parsed as ProxyDefinition[];
}

/** Accepts the real server's single-dash flags (-port 8474) as well. */
async function parseCli(argv: string[]): Promise<CliOptions> {
  const normalized = argv.map((arg) => (/^-[a-z]{2,}/.test(arg) ? `-${arg}` : arg));
  let values;
  try {
    ({ values } = parseArgs({
      args: normalized,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        config: { type: 'string' },
        seed: { type: 'string' },
        'proxy-metrics': { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new HarnessError('TOXIPROXY_BAD_FLAG', `${(error as Error).message}; ${USAGE}`, { cause: error });
  }
  const options: CliOptions = {};
  if (values.host !== undefined) options.host = values.host;
  if (values.port !== undefined) options.port = integer('port', values.port, 0, 65535);
  if (values.seed !== undefined)
    options.seed = integer('seed', values.seed, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  if (values.config !== undefined) options.config = await readConfig(values.config);
  if (values['proxy-metrics'] === true) options.proxyMetrics = true;
  return options;
}

async function main(): Promise<void> {
  const options = await parseCli(process.argv.slice(2));
  // Logs go to stderr so stdout carries only the one line with the URL.
  const logger = pino(
    { level: process.env.LOG_LEVEL ?? 'warn', base: { pid: process.pid, component: 'toxiproxy' } },
    pino.destination(2),
  );
  const server = await startToxiproxyServer({ ...options, logger });
  process.stdout.write(`toxiproxy listening on ${server.url} seed=${server.seed}\n`);
  const shutdown = (): void => {
    void server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`toxiproxy: stop failed: ${describeError(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`toxiproxy: ${describeError(error)}\n`);
  process.exit(2);
});
