import { randomBytes } from 'node:crypto';
import type { Fault, FaultEffect, FaultWindow, NemesisContext } from './fault.ts';
import type { FaultType } from '../../harness/flow/history/index.ts';
import { refusedByFaultProxy } from './fault-proxy-client.ts';
import type { FaultUndo } from './run-undo.ts';
import { readLinkCounters } from './link-counters.ts';

const EFFECT: Readonly<Record<ToxicFaultType, FaultEffect>> = {
  latency: 'slow',
  bandwidth: 'traffic',
  slicer: 'traffic',
  timeout: 'error',
  reset_peer: 'error',
  limit_data: 'error',
};

type ToxicFaultType = Extract<FaultType, 'latency' | 'bandwidth' | 'slicer' | 'timeout' | 'reset_peer' | 'limit_data'>;

/**
 * One Toxiproxy toxic on each of the given proxies (e.g. every client link of a sink), removed on
 * heal. Each toxic's name carries a tag of its own, so the heal (or a later reap) removes this
 * fault's toxic and never one someone else added under the type's usual name.
 */
export class ToxicFault implements Fault {
  private undo: FaultUndo | undefined;
  private readonly name: string;

  constructor(
    readonly type: ToxicFaultType,
    private readonly proxies: readonly string[],
    private readonly stream: 'upstream' | 'downstream',
    private readonly attributes: Readonly<Record<string, number>>,
    private readonly label: string,
  ) {
    this.name = `chaos_${type}_${stream}_${randomBytes(3).toString('hex')}`;
  }

  get targets(): readonly string[] {
    return this.proxies;
  }

  get effect(): FaultEffect {
    return EFFECT[this.type];
  }

  async apply({ proxies, undo, log }: NemesisContext): Promise<FaultWindow> {
    const links = await readLinkCounters(proxies, this.proxies);
    const own = (this.undo = undo.fault());
    await own.applying(async () => {
      for (const proxy of this.proxies) {
        await own.do(
          { kind: 'toxic', proxy, toxic: this.name },
          () =>
            proxies.addToxic(proxy, {
              name: this.name,
              type: this.type,
              stream: this.stream,
              toxicity: 1,
              attributes: { ...this.attributes },
            }),
          refusedByFaultProxy,
        );
        log.debug({ proxy, toxic: this.name }, 'toxic added');
      }
    });
    // The least a latency toxic adds to a response: the jitter is drawn per chunk, either way.
    const slowerThanMs =
      this.type === 'latency' ? (this.attributes.latency ?? 0) - (this.attributes.jitter ?? 0) : undefined;
    return {
      type: this.type,
      description: this.toString(),
      targets: this.targets,
      appliedAt: Date.now(),
      ...(slowerThanMs === undefined ? {} : { slowerThanMs }),
      toxic: { stream: this.stream, attributes: { ...this.attributes } },
      links,
    };
  }

  async heal({ log, proxies }: NemesisContext, window: FaultWindow): Promise<void> {
    await this.undo?.undo();
    log.debug({ proxies: this.proxies, toxic: this.name }, 'toxic removed');
    window.healedAt ??= Date.now();
    window.linksAfterHeal = await readLinkCounters(proxies, this.proxies);
  }

  toString(): string {
    return `${this.type}(${this.proxies.join('+')}, ${this.label})`;
  }
}

type Proxies = string | readonly string[];
const list = (proxies: Proxies): readonly string[] => (typeof proxies === 'string' ? [proxies] : proxies);

export const latency = (proxy: Proxies, ms: number, jitter = 0) =>
  new ToxicFault(
    'latency',
    list(proxy),
    'downstream',
    { latency: ms, jitter },
    jitter > 0 ? `${ms}ms±${jitter}` : `${ms}ms`,
  );
/** Latency on what the client sends: a request reaches its server `ms` late (a commit lands late, not just its answer). */
export const requestLatency = (proxy: Proxies, ms: number) =>
  new ToxicFault('latency', list(proxy), 'upstream', { latency: ms, jitter: 0 }, `${ms}ms, requests`);
export const bandwidth = (proxy: Proxies, kbPerSecond: number) =>
  new ToxicFault('bandwidth', list(proxy), 'upstream', { rate: kbPerSecond }, `${kbPerSecond}KB/s`);
export const slicer = (proxy: Proxies, averageSize: number, delayUs: number) =>
  new ToxicFault(
    'slicer',
    list(proxy),
    'upstream',
    { average_size: averageSize, size_variation: Math.floor(averageSize / 2), delay: delayUs },
    `${averageSize}B/${delayUs}us`,
  );
/**
 * Downstream: swallows the INSERT response (the insert commits, the client never hears; the
 * connection closes when the server ends it or after `ms`). Upstream: the request never arrives,
 * the client stalls, then the connection closes after `ms`.
 */
export const timeout = (proxy: Proxies, ms: number, stream: 'upstream' | 'downstream' = 'downstream') =>
  new ToxicFault(
    'timeout',
    list(proxy),
    stream,
    { timeout: ms },
    `${ms}ms${stream === 'upstream' ? ', upstream' : ''}`,
  );
/** Resets the connection when the INSERT response arrives: committed but unanswered. */
export const resetPeer = (proxy: Proxies, ms = 0) =>
  new ToxicFault('reset_peer', list(proxy), 'downstream', { timeout: ms }, `${ms}ms`);
/** Cuts the INSERT response after `bytes`: committed, answered only in part. */
export const limitData = (proxy: Proxies, bytes: number) =>
  new ToxicFault('limit_data', list(proxy), 'downstream', { bytes }, `${bytes}B`);
