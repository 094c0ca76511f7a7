import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Toxiproxy, type Proxy } from 'toxiproxy-node-client';
import { startToxiproxyServer, type StartedToxiproxyServer } from './server.ts';

/** Test helpers for the conformance tests: TCP peers that record what they see. */

export interface Received {
  readonly data: Buffer;
  readonly at: number;
}

export interface CloseInfo {
  /** The socket error code (ECONNRESET for an RST), undefined for a clean close. */
  readonly code: string | undefined;
  readonly at: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
export { sleep };

async function until<T>(what: string, timeoutMs: number, check: () => T | undefined): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(2);
  }
}

/** One end of a TCP connection: every chunk with its arrival time, and how it closed. */
export class Peer {
  readonly socket: Socket;
  readonly chunks: Received[] = [];
  private closeInfo: CloseInfo | undefined;
  private errorCode: string | undefined;

  constructor(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (data: Buffer) => this.chunks.push({ data, at: performance.now() }));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.errorCode ??= error.code ?? error.message;
    });
    socket.on('close', () => {
      this.closeInfo = { code: this.errorCode, at: performance.now() };
    });
  }

  get bytes(): Buffer {
    return Buffer.concat(this.chunks.map((chunk) => chunk.data));
  }

  get isClosed(): boolean {
    return this.closeInfo !== undefined;
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Resolves with the first `count` bytes received, and when the last of them arrived. */
  async waitForBytes(count: number, timeoutMs = 5_000): Promise<{ data: Buffer; at: number }> {
    return until(`${count} bytes (have ${this.bytes.length})`, timeoutMs, () => {
      let total = 0;
      for (const chunk of this.chunks) {
        total += chunk.data.length;
        if (total >= count) return { data: this.bytes.subarray(0, count), at: chunk.at };
      }
      return undefined;
    });
  }

  async waitClosed(timeoutMs = 5_000): Promise<CloseInfo> {
    return until('the socket to close', timeoutMs, () => this.closeInfo);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.isClosed) return;
    this.socket.destroy();
    await this.waitClosed();
  }
}

/** "host:port" as the API reports it -> connect options. */
export function hostPort(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon).replace(/^\[|\]$/g, ''), port: Number(address.slice(colon + 1)) };
}

export async function connectPeer(address: string): Promise<Peer> {
  const socket = connect(hostPort(address));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return new Peer(socket);
}

/** The error code of a connection attempt that must fail (ECONNREFUSED), or 'connected'. */
export async function connectOutcome(address: string): Promise<string> {
  try {
    const peer = await connectPeer(address);
    await peer[Symbol.asyncDispose]();
    return 'connected';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
}

/** A TCP server on 127.0.0.1:0 whose accepted sockets are Peers; echoes when asked to. */
export class Upstream {
  readonly accepted: Peer[] = [];
  readonly address: string;
  private readonly server: Server;

  private constructor(server: Server) {
    this.server = server;
    this.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** `halfOpen`: the server may still answer after the client's FIN, like an HTTP server does. */
  static async start(options: { echo?: boolean; halfOpen?: boolean } = {}): Promise<Upstream> {
    const server = createServer({ allowHalfOpen: options.halfOpen === true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const upstream = new Upstream(server);
    server.on('connection', (socket) => {
      const peer = new Peer(socket);
      upstream.accepted.push(peer);
      if (options.echo === true) socket.on('data', (data: Buffer) => socket.write(data));
    });
    return upstream;
  }

  async peer(index = 0, timeoutMs = 5_000): Promise<Peer> {
    return until(`upstream connection #${index}`, timeoutMs, () => this.accepted[index]);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    await Promise.all(this.accepted.map((peer) => peer[Symbol.asyncDispose]()));
    await closed;
  }
}

/**
 * Which server the conformance tests drive: this room's, or the real Toxiproxy binary named by
 * `TOXIPROXY_SERVER_BINARY` (the `toxiproxy-real` test project sets it). Where the two differ on
 * purpose, a test asserts each one's behaviour (the README lists the differences).
 */
const REAL_BINARY = process.env['TOXIPROXY_SERVER_BINARY'];
export const UNDER_TEST: 'builtin' | 'real' = REAL_BINARY === undefined || REAL_BINARY === '' ? 'builtin' : 'real';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** The real Toxiproxy binary on a free port, answering `/version`; the benchmark starts it this way too. */
export async function startRealServer(
  binary: string,
  seed: number,
  proxyMetrics: boolean,
): Promise<StartedToxiproxyServer & { readonly pid: number }> {
  if (!existsSync(binary))
    throw new Error(`no real Toxiproxy at ${binary}: build it with npm run build:toxiproxy (needs Go)`);
  const port = await freePort();
  const flags = ['-host', '127.0.0.1', '-port', String(port), '-seed', String(seed)];
  const child = spawn(binary, proxyMetrics ? [...flags, '-proxy-metrics'] : flags, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (const deadline = performance.now() + 10_000; ; await sleep(20)) {
    if (child.exitCode !== null) throw new Error(`the real Toxiproxy (${binary}) exited with ${child.exitCode}`);
    const answered = await fetch(`${url}/version`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) break;
    if (performance.now() > deadline) {
      await stop();
      throw new Error(`the real Toxiproxy did not answer at ${url}`);
    }
  }
  return { url, host: '127.0.0.1', port, seed, pid: child.pid ?? 0, stop, [Symbol.asyncDispose]: stop };
}

/** A server on a free port plus a client for it. */
export async function startTestServer(
  seed = 1,
  options: { readonly proxyMetrics?: boolean } = {},
): Promise<StartedToxiproxyServer & { client: Toxiproxy }> {
  const proxyMetrics = options.proxyMetrics ?? false;
  const server =
    REAL_BINARY === undefined || REAL_BINARY === ''
      ? await startToxiproxyServer({ port: 0, seed, proxyMetrics })
      : await startRealServer(REAL_BINARY, seed, proxyMetrics);
  return Object.assign(server, { client: new Toxiproxy(server.url) });
}

/** A proxy on localhost:0 in front of `upstream`. */
export async function proxyTo(client: Toxiproxy, upstream: Upstream, name = 'test'): Promise<Proxy> {
  return client.createProxy({ name, listen: 'localhost:0', upstream: upstream.address });
}

/** Adds a toxic through the client; the client's typings want every field, the API does not. */
export async function addToxic(
  proxy: Proxy,
  body: {
    type: string;
    stream?: 'upstream' | 'downstream';
    name?: string;
    toxicity?: number;
    attributes?: Record<string, number>;
  },
) {
  return proxy.addToxic(body as Parameters<Proxy['addToxic']>[0]);
}

/** A connected client and the upstream's side of the same connection. */
export async function connectThrough(proxy: Proxy, upstream: Upstream): Promise<{ client: Peer; server: Peer }> {
  const index = upstream.accepted.length;
  const client = await connectPeer(proxy.listen);
  const server = await upstream.peer(index);
  return { client, server };
}

export function elapsedSince(start: number): number {
  return performance.now() - start;
}
