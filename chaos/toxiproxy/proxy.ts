import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { joinHostPort, resolveListenHost, splitHostPort } from './address.ts';
import { ApiError } from './api-error.ts';
import { Connection } from './connection.ts';
import type { Random } from './random.ts';
import { toxicJson } from './toxic.ts';
import { ToxicCollection } from './toxic-collection.ts';
import { ProxyTraffic } from './traffic.ts';

/** What every proxy of one server shares. */
export interface ProxyEnvironment {
  readonly toxicity: Random;
  readonly shaping: Random;
  readonly logger: Logger;
}

export interface ProxySettings {
  readonly listen: string;
  readonly upstream: string;
  readonly enabled: boolean;
}

const BIND_ERRORS: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'cannot assign requested address',
};

/**
 * One named proxy: a listener on `listen`, a connection to `upstream` per accepted client, and
 * the toxics applied to every connection. `listen` reports the bound address once started, so
 * a re-enable binds the same port.
 */
export class FaultProxy {
  readonly name: string;
  readonly toxics = new ToxicCollection();
  /** Bytes its links moved, over every connection it ever had (`GET /metrics`). */
  readonly traffic = new ProxyTraffic();
  listen: string;
  upstream: string;
  enabled = false;
  private server: Server | undefined;
  private readonly connections = new Set<Connection>();
  private readonly environment: ProxyEnvironment;
  private readonly log: Logger;

  constructor(name: string, listen: string, upstream: string, environment: ProxyEnvironment) {
    this.name = name;
    this.listen = listen;
    this.upstream = upstream;
    this.environment = environment;
    this.log = environment.logger.child({ proxy: name });
  }

  get toxicity(): Random {
    return this.environment.toxicity;
  }

  get shaping(): Random {
    return this.environment.shaping;
  }

  get logger(): Logger {
    return this.log;
  }

  json(): Record<string, unknown> {
    return {
      name: this.name,
      listen: this.listen,
      upstream: this.upstream,
      enabled: this.enabled,
      toxics: this.toxics.list().map(toxicJson),
    };
  }

  /** Binds the listener; a bind failure is a 500 with Go's wording. No-op when running. */
  async start(): Promise<void> {
    if (this.enabled) return;
    let address;
    try {
      address = splitHostPort(this.listen);
    } catch (error) {
      throw new ApiError(`listen tcp: ${(error as Error).message}`, 500);
    }
    let host;
    try {
      host = await resolveListenHost(address.host);
    } catch {
      throw new ApiError(`listen tcp: lookup ${address.host}: no such host`, 500);
    }
    const server = createServer(
      { allowHalfOpen: true, pauseOnConnect: true, noDelay: true, keepAlive: true, keepAliveInitialDelay: 15_000 },
      (socket) => this.accept(socket),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        const reason = BIND_ERRORS[error.code ?? ''] ?? error.message;
        reject(new ApiError(`listen tcp ${joinHostPort(host ?? '', address.port)}: bind: ${reason}`, 500));
      });
      server.listen({ host, port: address.port }, resolve);
    });
    server.on('error', (error) => this.log.warn({ err: error }, 'proxy listener error'));
    const bound = server.address() as AddressInfo;
    this.server = server;
    this.listen = joinHostPort(bound.address, bound.port);
    this.enabled = true;
    this.log.info({ listen: this.listen, upstream: this.upstream }, 'proxy started');
  }

  /** Closes the listener first (new clients are refused), then every connection. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!this.enabled || server === undefined) return;
    this.enabled = false;
    this.server = undefined;
    const listenerClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    const connections = [...this.connections];
    for (const connection of connections) connection.destroy();
    await Promise.all([listenerClosed, ...connections.map((connection) => connection.closed)]);
    this.log.info({ listen: this.listen }, 'proxy stopped');
  }

  /** The real server's update: a new listen or upstream restarts it, then `enabled` is applied. */
  async update(settings: ProxySettings): Promise<void> {
    if (settings.listen !== this.listen || settings.upstream !== this.upstream) {
      await this.stop();
      this.listen = settings.listen;
      this.upstream = settings.upstream;
    }
    if (settings.enabled !== this.enabled) {
      if (settings.enabled) await this.start();
      else await this.stop();
    }
  }

  private accept(socket: Socket): void {
    if (!this.enabled) {
      socket.destroy();
      return;
    }
    const connection = new Connection(socket, this);
    this.connections.add(connection);
    void connection.closed.then(() => this.connections.delete(connection));
  }
}
