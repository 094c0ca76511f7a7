import { connect, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { splitHostPort } from './address.ts';
import { Link } from './link.ts';
import type { Random } from './random.ts';
import type { ToxicCollection } from './toxic-collection.ts';
import type { ProxyTraffic } from './traffic.ts';

/** What a connection needs from its proxy. */
export interface ConnectionHost {
  readonly upstream: string;
  readonly toxics: ToxicCollection;
  readonly traffic: ProxyTraffic;
  readonly toxicity: Random;
  readonly shaping: Random;
  readonly logger: Logger;
}

interface Side {
  readonly socket: Socket;
  /** We started closing it: its data is ignored from now on. */
  closing: boolean;
  closed: boolean;
}

const ignore = (): void => {};

/**
 * One accepted client, its upstream socket and the two links between them. There is no
 * half-close: when either direction ends, its destination is closed completely, and the other
 * direction then ends too, exactly like the real server's Close on both net.Conns.
 */
export class Connection {
  readonly closed: Promise<void>;
  private readonly client: Side;
  private upstream: Side | undefined;
  private up: Link | undefined;
  private down: Link | undefined;
  /** SO_LINGER 0 in the real server: every close of this connection is a TCP RST. */
  private resetOnClose = false;
  private readonly host: ConnectionHost;
  private readonly log: Logger;
  private finish: () => void = ignore;

  constructor(client: Socket, host: ConnectionHost) {
    this.host = host;
    this.client = { socket: client, closing: false, closed: false };
    this.log = host.logger.child({ client: `${client.remoteAddress}:${client.remotePort}` });
    this.closed = new Promise((resolve) => {
      this.finish = resolve;
    });
    client.on('error', ignore);
    client.once('close', () => this.sideClosed(this.client));
    this.dial();
  }

  /** Closes both sockets now (proxy disabled, deleted or restarted). */
  destroy(): void {
    this.up?.dispose();
    this.down?.dispose();
    for (const side of [this.client, this.upstream]) {
      if (side === undefined || side.socket.destroyed) continue;
      side.closing = true;
      this.kill(side.socket);
    }
  }

  private dial(): void {
    let target;
    try {
      target = splitHostPort(this.host.upstream);
    } catch {
      this.unreachable();
      return;
    }
    const socket = connect({ host: target.host || 'localhost', port: target.port, allowHalfOpen: true, noDelay: true });
    const side: Side = { socket, closing: false, closed: false };
    this.upstream = side;
    socket.on('error', ignore);
    socket.once('close', () => this.sideClosed(side));
    socket.once('connect', () => {
      if (this.client.closing || this.client.closed) {
        socket.destroy();
        return;
      }
      socket.setKeepAlive(true, 15_000);
      this.startLinks(side);
    });
  }

  /** Like the real server: the client was accepted, so it is closed at once. */
  private unreachable(): void {
    this.log.debug({ upstream: this.host.upstream }, 'upstream unreachable, closing client');
    this.client.closing = true;
    this.client.socket.destroy();
  }

  private startLinks(upstream: Side): void {
    const { toxics } = this.host;
    this.resetOnClose = toxics.list().some((toxic) => toxic.type.resetsOnClose === true);
    const up = this.makeLink('upstream', this.client, upstream);
    const down = this.makeLink('downstream', upstream, this.client);
    this.up = up;
    this.down = down;
    this.pipe(this.client, up, upstream);
    this.pipe(upstream, down, this.client);
    this.log.debug({ reset: this.resetOnClose }, 'connection open');
  }

  private makeLink(direction: 'upstream' | 'downstream', source: Side, destination: Side): Link {
    const link = new Link({
      direction,
      toxics: this.host.toxics.chain(direction),
      toxicity: this.host.toxicity,
      shaping: this.host.shaping,
      write: (data) => {
        if (destination.closing) return;
        destination.socket.write(data);
        this.host.traffic.sent[direction] += data.length;
      },
      end: () => this.close(destination),
      relieved: () => this.resume(source, link, destination),
    });
    this.host.toxics.attach(link);
    return link;
  }

  private pipe(source: Side, link: Link, destination: Side): void {
    const socket = source.socket;
    socket.on('data', (data: Buffer) => {
      if (source.closing) return;
      this.host.traffic.received[link.direction] += data.length;
      link.input(data);
      if (link.isFull || destination.socket.writableNeedDrain) socket.pause();
    });
    socket.once('end', () => link.end());
    destination.socket.on('drain', () => this.resume(source, link, destination));
    socket.resume();
  }

  private resume(source: Side, link: Link, destination: Side): void {
    if (source.closing || link.isFull || destination.socket.writableNeedDrain) return;
    source.socket.resume();
  }

  /** A link's stream ended: close its destination fully; reading from it stops too. */
  private close(side: Side): void {
    if (side.closing) return;
    side.closing = true;
    side.socket.pause();
    this.linkFrom(side)?.end();
    if (this.resetOnClose) {
      this.kill(side.socket);
      return;
    }
    side.socket.once('finish', () => side.socket.destroy());
    side.socket.end();
  }

  /**
   * Both sockets of a connection opened while a reset_peer toxic exists have linger 0, as the real
   * server sets it on the source and destination of the link: both ends see the RST.
   */
  private kill(socket: Socket): void {
    if (socket.destroyed) return;
    if (this.resetOnClose && !socket.connecting) socket.resetAndDestroy();
    else socket.destroy();
  }

  private sideClosed(side: Side): void {
    side.closed = true;
    side.closing = true;
    this.linkFrom(side)?.end();
    this.linkTo(side)?.dispose();
    const upstream = this.upstream;
    if (!this.client.closed) {
      // The client cannot be served without an upstream that never connected or is gone.
      if (side === upstream && this.up === undefined) this.unreachable();
      return;
    }
    if (upstream !== undefined && !upstream.closed) {
      if (this.up === undefined) upstream.socket.destroy();
      return;
    }
    for (const link of [this.up, this.down]) {
      if (link === undefined) continue;
      link.dispose();
      this.host.toxics.detach(link);
    }
    this.log.debug('connection closed');
    this.finish();
  }

  private linkFrom(side: Side): Link | undefined {
    return side === this.client ? this.up : this.down;
  }

  private linkTo(side: Side): Link | undefined {
    return side === this.client ? this.down : this.up;
  }
}
