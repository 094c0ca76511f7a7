import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { componentLogger, HarnessError } from '../../harness/base/index.ts';
import { joinHostPort } from './address.ts';
import { createApiHandler } from './api.ts';
import { ProxyCollection, type ProxyDefinition } from './proxy-collection.ts';
import { createRandom, freshSeed } from './random.ts';

export type { ProxyDefinition } from './proxy-collection.ts';

export interface ToxiproxyServerOptions {
  /** API host; default 127.0.0.1. */
  host?: string;
  /** API port; default 8474, 0 picks a free one. */
  port?: number;
  /** Seed of the toxicity draws; a fresh one is drawn (and logged) when absent. */
  seed?: number;
  /** Proxies to create at start, the same JSON as POST /populate. */
  config?: ProxyDefinition[];
  /** Serve `GET /metrics` with every proxy's byte counters (the real server's `-proxy-metrics`); default off. */
  proxyMetrics?: boolean;
  logger?: Logger;
}

export interface StartedToxiproxyServer {
  /** http://host:port of the API, for `new Toxiproxy(url)`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly seed: number;
  /** Closes the API, every proxy listener and every proxied socket; resolves when all are closed. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const DEFAULT_PORT = 8474;

async function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const address = joinHostPort(host, port);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new HarnessError(
        'TOXIPROXY_PORT_IN_USE',
        `Toxiproxy API could not listen on ${address}: the port is in use; stop the other server (a real toxiproxy?) or pass another port (0 picks a free one)`,
        { cause: error },
      );
    }
    throw new HarnessError(
      'TOXIPROXY_LISTEN_FAILED',
      `Toxiproxy API could not listen on ${address}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return server.address() as AddressInfo;
}

/** Starts a Toxiproxy 2.12-compatible server in this process. */
export async function startToxiproxyServer(options: ToxiproxyServerOptions = {}): Promise<StartedToxiproxyServer> {
  const host = options.host ?? '127.0.0.1';
  const seed = options.seed ?? freshSeed();
  const logger = options.logger ?? componentLogger('toxiproxy');
  const proxies = new ProxyCollection({
    toxicity: createRandom(seed, 0),
    shaping: createRandom(seed, 1),
    logger,
  });
  if (options.config !== undefined) {
    // Applied before the API listens, so no request can interleave with it.
    const result = await proxies
      .populate(options.config)
      .catch((error: unknown) => ({ proxies: [], error: error as Error }));
    if (result.error !== undefined) {
      await proxies.clear();
      throw new HarnessError(
        'TOXIPROXY_CONFIG_REJECTED',
        `Toxiproxy config was rejected: ${result.error.message}; fix the proxy definitions (name, listen, upstream) or free the listen ports`,
        { cause: result.error },
      );
    }
  }
  const api = createApiHandler(proxies, logger, { proxyMetrics: options.proxyMetrics === true });
  const http = createServer({ keepAliveTimeout: 60_000 }, api.handle);
  const address = await listen(http, host, options.port ?? DEFAULT_PORT).catch(async (error: unknown) => {
    await proxies.clear();
    throw error;
  });
  const url = `http://${joinHostPort(address.address, address.port)}`;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await Promise.all([closed, api.shutdown()]);
      logger.info({ url }, 'toxiproxy server stopped');
    })();
    return stopping;
  };
  logger.info({ url, seed, proxies: options.config?.length ?? 0 }, 'toxiproxy server started');

  return {
    url,
    host: address.address,
    port: address.port,
    seed,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
